-- Attempts distribution (receipts stats: attempts; 50 stands for 50 or more).
SELECT least(attempts, 50) AS attempts, count() AS receipts
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
GROUP BY attempts
ORDER BY attempts;
