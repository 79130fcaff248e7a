-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
SET lock_timeout = '2s';
CREATE TABLE order_tags (
    order_id bigint NOT NULL,
    tag text NOT NULL,
    PRIMARY KEY (order_id, tag)
);
CREATE INDEX order_tags_tag_idx ON order_tags (tag);
-- and the lookup the tag screen needs on orders itself
CREATE INDEX orders_updated_at_idx ON orders (updated_at);
