-- The most frequent failure reasons (receipts stats: topFailureReasons).
SELECT status, ifNull(reason, '-') AS reason, count() AS receipts
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
WHERE status NOT IN ('delivered', 'skipped')
GROUP BY status, reason
ORDER BY receipts DESC, status, reason
LIMIT 10;
