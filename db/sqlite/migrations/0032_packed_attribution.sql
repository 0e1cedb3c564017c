-- The attribution index's two hash-keyed tables packed many hashes to a row (db/sqlite/packed-keys.ts): a row per
-- bucket (a hash's top 16 bits, as row 65,536 + those bits: level 0 of the table's buckets), its entries the bucket's
-- hashes sorted by their other 48 bits, each as those 6 bytes and then its values at fixed widths (a list id in 4
-- bytes, a first-seen time in 5, two's complement, null as 0x8000000000). Every hash and value is kept; the count of
-- hashes goes to attr_state (the table splits its buckets as it grows past 128 a bucket).
CREATE TABLE `__new_attr_blocks` (
	`bucket` integer PRIMARY KEY NOT NULL,
	`entries` blob NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_attr_blocks` (`bucket`, `entries`)
  SELECT ((`hash` >> 48) & 65535) + 65536, unhex(group_concat(
    printf('%012x%08x%010x', `hash` & 281474976710655, `list`, coalesce(`first_at` & 1099511627775, 549755813888)),
    '' ORDER BY `hash` & 281474976710655))
  FROM `attr_blocks` GROUP BY `hash` >> 48;--> statement-breakpoint
INSERT INTO `attr_state` (`key`, `value`) SELECT 'attr_blocks_keys', count(*) FROM `attr_blocks`;--> statement-breakpoint
DROP TABLE `attr_blocks`;--> statement-breakpoint
ALTER TABLE `__new_attr_blocks` RENAME TO `attr_blocks`;--> statement-breakpoint
CREATE TABLE `__new_attr_local` (
	`bucket` integer PRIMARY KEY NOT NULL,
	`entries` blob NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_attr_local` (`bucket`, `entries`)
  SELECT ((`hash` >> 48) & 65535) + 65536, unhex(group_concat(
    printf('%012x%010x', `hash` & 281474976710655, `first_at` & 1099511627775),
    '' ORDER BY `hash` & 281474976710655))
  FROM `attr_local` GROUP BY `hash` >> 48;--> statement-breakpoint
INSERT INTO `attr_state` (`key`, `value`) SELECT 'attr_local_keys', count(*) FROM `attr_local`;--> statement-breakpoint
DROP TABLE `attr_local`;--> statement-breakpoint
ALTER TABLE `__new_attr_local` RENAME TO `attr_local`;
