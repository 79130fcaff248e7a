-- corpus: label=safe pg-version=15 runner=psql hazards=type-change
-- Rails: change_column :posts, :title, :text
ALTER TABLE "posts" ALTER COLUMN "title" TYPE text;
