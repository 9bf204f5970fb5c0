-- Receipts and delivery rate per minute (receipts stats: perMinute).
SELECT
    toStartOfMinute(receiptTime) AS minute,
    count() AS total,
    countIf(status = 'delivered') AS delivered,
    countIf(status = 'skipped') AS skipped,
    delivered / nullIf(total - skipped, 0) AS deliveryRate
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
GROUP BY minute
ORDER BY minute;
