-- The window cache keeps the aggregated rows in the query's separated-text form now, no longer as JSON;
-- windows of the earlier form are dropped: the next query of a preset sums the blocks and keeps it again.
DELETE FROM "ads_insight_windows";
