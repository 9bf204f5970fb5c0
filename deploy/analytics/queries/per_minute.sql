-- Receipts and delivery rate per minute, from the rollup (receipts stats: perMinute).
SELECT
    minute,
    sum(r.receipts) AS total,
    sumIf(r.receipts, r.status = 'delivered') AS delivered,
    sumIf(r.receipts, r.status = 'skipped') AS skipped,
    delivered / nullIf(total - skipped, 0) AS deliveryRate
FROM push.receipts_per_minute AS r
GROUP BY minute
ORDER BY minute;
