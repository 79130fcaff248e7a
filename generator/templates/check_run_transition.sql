CREATE FUNCTION @qschema.check_run_transition() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (OLD.status, NEW.status) NOT IN (
        @pairs
    ) THEN
        RAISE EXCEPTION 'run %: % -> % is not an allowed transition',
            OLD.run_id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.version <= OLD.version THEN
        RAISE EXCEPTION 'run %: a status change must bump version', OLD.run_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$
