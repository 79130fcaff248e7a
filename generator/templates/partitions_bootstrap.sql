DO $$
DECLARE
    step record;
BEGIN
    FOR step IN SELECT * FROM @qschema.partition_steps() WHERE action IN ('create', 'attach') LOOP
        EXECUTE step.statement;
    END LOOP;
END
$$
