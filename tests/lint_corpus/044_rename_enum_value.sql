-- corpus: label=unsafe pg-version=16 runner=psql hazards=rename
ALTER TYPE order_status RENAME VALUE 'canceled' TO 'cancelled';
