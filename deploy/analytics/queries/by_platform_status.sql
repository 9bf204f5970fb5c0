-- Per platform × status (receipts stats: byPlatform).
SELECT platform, status, count() AS receipts
FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = {run:String})
GROUP BY platform, status
ORDER BY platform, status;
