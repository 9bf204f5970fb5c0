-- Receipt records read in [from, to), copies included, and how many of them were copies of a receipt counted
-- once (receipts stats: copies.dropped), for every run. Records count per minute of their own receipt time, a
-- receipt at its first copy's: with whole-minute bounds, off only by the copies that straddle from or to.
SELECT records, records - distinctReceipts AS copiesDropped
FROM
(
    SELECT sum(records) AS records
    FROM push.receipt_records_per_minute
    WHERE minute >= {from:DateTime64(3, 'UTC')} AND minute < {to:DateTime64(3, 'UTC')}
) AS read,
(
    SELECT count() AS distinctReceipts
    FROM push.receipts_window(from = {from:DateTime64(3, 'UTC')}, to = {to:DateTime64(3, 'UTC')}, run = '*')
) AS counted;
