-- delivered / (all − skipped) (receipts stats: deliveryRate); NULL when nothing was sent.
SELECT countIf(status = 'delivered') / nullIf(count() - countIf(status = 'skipped'), 0) AS deliveryRate
FROM push.receipts;
