-- The receipts of a time window, each receiptId once: what every query in queries/ reads. FINAL makes the
-- ReplacingMergeTree's answer exact before its background merges; the filter applies after it.
--   from, to   receipt time (sentAt, else the Kafka record's time), from inclusive, to exclusive
--   run        '' = the live worker's sends only, a run id = that replay run only, '*' = every receipt
-- SELECT … FROM push.receipts_window(from = '2026-12-01 00:00:00', to = '2026-12-02 00:00:00', run = '')
CREATE VIEW IF NOT EXISTS push.receipts_window AS
SELECT *
FROM push.receipts FINAL
WHERE receiptTime >= {from:DateTime64(3, 'UTC')} AND receiptTime < {to:DateTime64(3, 'UTC')}
    AND ({run:String} = '*' OR ({run:String} = '' AND replayRunId IS NULL) OR replayRunId = {run:String});
