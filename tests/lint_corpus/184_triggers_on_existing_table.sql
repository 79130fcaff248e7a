-- corpus: label=safe pg-version=16 runner=psql hazards=none,lock-timeout
-- Keep updated_at current on orders. CREATE TRIGGER takes SHARE ROW EXCLUSIVE briefly; no scan.
CREATE OR REPLACE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS orders_touch_updated_at ON orders;
CREATE TRIGGER orders_touch_updated_at BEFORE UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
