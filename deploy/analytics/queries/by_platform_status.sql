-- Per platform × status (receipts stats: byPlatform).
SELECT platform, status, count() AS receipts FROM push.receipts GROUP BY platform, status ORDER BY platform, status;
