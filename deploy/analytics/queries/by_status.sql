-- Totals by status (receipts stats: byStatus), each receiptId once, in [from, to) for run (see 04_window.sql).
SELECT status, count() AS receipts FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String}) GROUP BY status ORDER BY status;
