CREATE INDEX `reasoning_ts` ON `reasoning_spans` (`ts`);--> statement-breakpoint
CREATE INDEX `tools_ts` ON `tools` (`ts`);