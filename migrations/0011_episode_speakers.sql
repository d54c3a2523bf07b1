-- A name in a query counts as a speaker only when someone of that name speaks in the
-- space (recall looks the query's names up here: an index seek, not a scan of every
-- episode's metadata). Places and things named in a query ("Goa", "Zoho") stay words.
CREATE INDEX episodes_speaker ON episodes (space, lower(json_extract(metadata, '$.speaker')))
WHERE json_extract(metadata, '$.speaker') IS NOT NULL;
