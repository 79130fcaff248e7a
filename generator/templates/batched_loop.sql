DO $agentddl$
DECLARE
    moved integer;
BEGIN
    LOOP
        @statement;
        GET DIAGNOSTICS moved = ROW_COUNT;
        EXIT WHEN moved = 0;
        COMMIT;
    END LOOP;
END
$agentddl$
