-- Suspect invalid_token receipts (receipts stats: suspect): answers the worker did not act on, as its
-- misconfiguration guard had tripped; each receiptId once, in [from, to) for run (see 04_window.sql).
SELECT countIf(suspect) AS receipts FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String});
