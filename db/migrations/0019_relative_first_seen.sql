-- First-seen times of the attribution index in ms after an epoch kept in attr_state (the earliest time on disk).
INSERT INTO `attr_state` (`key`, `value`)
  SELECT 'epoch', min(`m`) FROM (
    SELECT min(`first_at`) AS `m` FROM `attr_blocks` UNION ALL SELECT min(`first_at`) FROM `attr_local`
  ) HAVING min(`m`) IS NOT NULL;--> statement-breakpoint
UPDATE `attr_blocks` SET `first_at` = `first_at` - (SELECT `value` FROM `attr_state` WHERE `key` = 'epoch')
  WHERE `first_at` IS NOT NULL;--> statement-breakpoint
UPDATE `attr_local` SET `first_at` = `first_at` - (SELECT `value` FROM `attr_state` WHERE `key` = 'epoch');
