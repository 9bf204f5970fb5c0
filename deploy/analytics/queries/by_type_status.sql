-- Per message type × status (receipts stats: byType).
SELECT type, status, count() AS receipts FROM push.receipts GROUP BY type, status ORDER BY type, status;
