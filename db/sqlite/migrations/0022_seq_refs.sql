ALTER TABLE `requests` ADD `seq_refs` blob;--> statement-breakpoint
CREATE INDEX `requests_seq_refs` ON `requests` (`ts`) WHERE seq_refs IS NOT NULL;