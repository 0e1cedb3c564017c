DROP TABLE `attr_blocks`;--> statement-breakpoint
CREATE INDEX `route_decisions_request` ON `route_decisions` (`request_id`);