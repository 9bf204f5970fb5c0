-- Totals by status (receipts stats: byStatus).
SELECT status, count() AS receipts FROM push.receipts GROUP BY status ORDER BY status;
