-- The most frequent failure reasons (receipts stats: topFailureReasons).
SELECT status, ifNull(reason, '-') AS reason, count() AS receipts
FROM push.receipts
WHERE status NOT IN ('delivered', 'skipped')
GROUP BY status, reason
ORDER BY receipts DESC, status, reason
LIMIT 10;
