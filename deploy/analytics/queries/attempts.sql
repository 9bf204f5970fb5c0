-- Attempts distribution (receipts stats: attempts; 50 stands for 50 or more).
SELECT least(attempts, 50) AS attempts, count() AS receipts FROM push.receipts GROUP BY attempts ORDER BY attempts;
