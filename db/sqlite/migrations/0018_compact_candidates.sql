DROP INDEX `route_decisions_session`;--> statement-breakpoint
-- Candidate lists in the compact text of db/candidate-codec.ts; a list it cannot hold (ids with , or ; or a leading [) stays JSON.
UPDATE `route_decisions` SET `candidates` = (
  SELECT group_concat(
    (`value` ->> '$.worker_id') || ',' || (`value` -> '$.prefill_blocks') || ',' || (`value` -> '$.decode_blocks') ||
    CASE
      WHEN (`value` ->> '$.cost') = (`value` ->> '$.prefill_blocks') + (`value` ->> '$.decode_blocks') - (`value` ->> '$.overlap_blocks')
        THEN CASE WHEN (`value` ->> '$.overlap_blocks') = 0 THEN '' ELSE ',' || (`value` -> '$.overlap_blocks') END
      ELSE ',' || (`value` -> '$.overlap_blocks') || ',' || (`value` -> '$.cost')
    END,
    ';' ORDER BY `key`)
  FROM json_each(`candidates`))
WHERE json_valid(`candidates`) AND json_type(`candidates`) = 'array' AND json_array_length(`candidates`) > 0
  AND NOT EXISTS (
    SELECT 1 FROM json_each(`route_decisions`.`candidates`) AS `c`
    WHERE json_type(`c`.`value`) <> 'object'
      OR (SELECT count(*) FROM json_each(`c`.`value`)) <> 5
      OR json_type(`c`.`value`, '$.worker_id') IS NOT 'text'
      OR `c`.`value` ->> '$.worker_id' = '' OR instr(`c`.`value` ->> '$.worker_id', ',') > 0
      OR instr(`c`.`value` ->> '$.worker_id', ';') > 0 OR substr(`c`.`value` ->> '$.worker_id', 1, 1) = '['
      OR json_type(`c`.`value`, '$.overlap_blocks') IS NOT 'integer' OR `c`.`value` ->> '$.overlap_blocks' < 0
      OR json_type(`c`.`value`, '$.prefill_blocks') IS NOT 'integer' OR `c`.`value` ->> '$.prefill_blocks' < 0
      OR json_type(`c`.`value`, '$.decode_blocks') IS NOT 'integer' OR `c`.`value` ->> '$.decode_blocks' < 0
      OR json_type(`c`.`value`, '$.cost') NOT IN ('integer', 'real'));
