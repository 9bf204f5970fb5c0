-- Per message type × status (receipts stats: byType).
SELECT type, status, count() AS receipts
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
GROUP BY type, status
ORDER BY type, status;
