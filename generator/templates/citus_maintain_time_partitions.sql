-- partition maintenance with Citus's own functions (instead of maintain_partitions):
-- create_time_partitions makes the runway ahead (each new partition is distributed with
-- its parent), drop_old_time_partitions drops those wholly past retention. Run it on a
-- schedule on the coordinator as a member of the owner role: CALL @name();
CREATE PROCEDURE @name(p_now timestamptz DEFAULT now())
LANGUAGE plpgsql
AS $$
BEGIN
@body
END
$$;
REVOKE ALL ON PROCEDURE @name(timestamptz) FROM public;
GRANT EXECUTE ON PROCEDURE @name(timestamptz) TO @owner;
