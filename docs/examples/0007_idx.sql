CREATE INDEX idx_runs_status ON agent.runs (status);
ALTER TABLE agent.events ALTER COLUMN created_at TYPE timestamptz;
