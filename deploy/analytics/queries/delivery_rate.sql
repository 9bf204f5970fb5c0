-- delivered / (all − skipped) (receipts stats: deliveryRate); NULL when nothing was sent.
SELECT countIf(status = 'delivered') / nullIf(count() - countIf(status = 'skipped'), 0) AS deliveryRate
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String});
