CREATE FUNCTION @qschema.check_checkpoint_parent() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.parent_seq IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM @qschema.checkpoints AS p
        WHERE @same_run AND p.seq = NEW.parent_seq
    ) THEN
        RAISE EXCEPTION 'checkpoint % of run %: parent checkpoint % does not exist',
            NEW.seq, NEW.run_id, NEW.parent_seq USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END
$$
