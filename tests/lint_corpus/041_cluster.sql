-- corpus: label=unsafe pg-version=14 runner=psql hazards=table-rewrite
CLUSTER orders USING orders_created_at_idx;
