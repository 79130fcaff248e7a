"""Run the enabled rules over a walked migration and turn violations into findings,
applying severities and suppressions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.probe import DataCheck, RunProbe, judge
from agentddl.checks.lint.rules import all_rules
from agentddl.checks.lint.sizes import SizeThresholds, scaled, table_size
from agentddl.checks.lint.suppress import Suppression, attach_to_statements, find_suppressions
from agentddl.checks.lint.types import Context, Finding, Rule, Severity, Statement, Violation
from agentddl.checks.pg.schema import SchemaFacts
from agentddl.checks.pg.walk import Migration, SyntaxProblem, walk

SYNTAX_ERROR, UNUSED_IGNORE, IGNORE_WITHOUT_REASON = (
    "syntax-error",
    "unused-ignore",
    "ignore-without-reason",
)
FRAMEWORK_RULES = (SYNTAX_ERROR, UNUSED_IGNORE, IGNORE_WITHOUT_REASON)
# Judged by the input reader on a revision's Python source, never on SQL: an ignore
# comment naming it is not "unused" here.
REVISION_RULES = ("unreadable-revision", "multiple-heads", "revision-not-after-applied")


def lint(
    text: str,
    file: str,
    config: LintConfig,
    only: Iterable[str] | None = None,
    schema: SchemaFacts | None = None,
) -> list[Finding]:
    """Lint one migration's SQL. `only` restricts the rules run (plus the framework's);
    `schema` is the database's schema before the migration (`--schema-from`)."""
    migration = walk(text, file, config.pg_version, config.runner, config.options, schema)
    return lint_migration(migration, config, only)


def lint_migration(
    migration: Migration, config: LintConfig, only: Iterable[str] | None = None
) -> list[Finding]:
    """Findings for an already walked migration, sorted by position."""
    rules = _enabled(config, only)
    if migration.syntax_error is not None:
        return _syntax_findings(migration, migration.syntax_error, rules)
    raw = _collapsed(_raw_findings(migration, rules, config))
    if config.probe is not None:
        config.probe.linted(migration.steps)
    spans = [_statement_lines(s) for s, _ in migration.steps if not s.in_do_block]
    suppressions = attach_to_statements(find_suppressions(migration.text, migration.source), spans)
    findings = _apply_suppressions(raw, suppressions, migration.file, rules)
    return sorted(findings, key=lambda f: (f.line or 0, f.column or 0, f.code))


@dataclass(frozen=True)
class _Enabled:
    """A rule switched on for this run, with its severity."""

    rule: type[Rule]
    severity: Severity  # the configured one, else the rule's default
    configured: bool  # the configuration set it: it wins over a violation's own severity

    def finding(self, file: str, position: tuple[int, int], violation: Violation) -> Finding:
        severity = self.severity if self.configured else violation.severity or self.severity
        line, column = position
        return self.rule.finding(
            violation.message, violation.fix, severity=severity, file=file, line=line, column=column
        )


def _syntax_findings(migration: Migration, error: SyntaxProblem, rules: dict[str, _Enabled]) -> list[Finding]:
    if SYNTAX_ERROR not in rules:
        return []
    message = f"This file cannot be parsed ({error.message}); nothing in it was linted."
    violation = Violation(message, "Fix the SQL so PostgreSQL can parse it.")
    position = migration.source.position(error.offset)
    return [rules[SYNTAX_ERROR].finding(migration.file, position, violation)]


def _enabled(config: LintConfig, only: Iterable[str] | None) -> dict[str, _Enabled]:
    selected = None if only is None else {*only, *FRAMEWORK_RULES}
    enabled: dict[str, _Enabled] = {}
    for rule in all_rules():
        severity = config.severity(rule)
        if severity is not None and (selected is None or rule.name in selected):
            enabled[rule.name] = _Enabled(rule, severity, rule.name in config.severities)
    return enabled


def _raw_findings(
    migration: Migration, rules: dict[str, _Enabled], config: LintConfig
) -> Iterable[tuple[Finding, Statement]]:
    instances = [(enabled.rule(), enabled) for name, enabled in rules.items() if name not in FRAMEWORK_RULES]
    by_type: dict[type, list[tuple[Rule, _Enabled]]] = {}
    for statement, context in migration.steps:
        kind = type(statement.node)
        if kind not in by_type:  # the rules that can report on this kind of statement
            by_type[kind] = [(r, e) for r, e in instances if _applies(r, kind)]
        for rule, enabled in by_type[kind]:
            for violation in _checked(rule, statement, context):
                offset = statement.offset
                if violation.location is not None and not statement.in_do_block:
                    offset += violation.location
                position = migration.source.position(offset)
                finding = enabled.finding(migration.file, position, violation)
                if violation.data_check is not None:
                    judged = _on_the_rows(finding, violation.data_check, config.probe, enabled.configured)
                    if judged is None:
                        continue
                    finding = judged
                if rule.scales_with_table_size and violation.by_size:
                    finding = _by_size(finding, statement, context, config.table_size, enabled.configured)
                yield finding, statement


def _on_the_rows(
    finding: Finding, check: DataCheck, probe: RunProbe | None, configured: bool
) -> Finding | None:
    """A data-dependent finding judged on the database's rows: None when no row would
    make the statement fail, else its verdict and what the check found, how fast.
    Without a database it stays as the rule made it (or, `quiet_unprobed`, goes)."""
    if probe is None:
        return None if check.quiet_unprobed else finding
    verdict = judge(check, probe)
    if verdict.severity is None:
        return None
    severity = finding.severity if configured else verdict.severity
    return replace(finding, severity=severity, message=f"{finding.message} {verdict.note}")


def _collapsed(raw: Iterable[tuple[Finding, Statement]]) -> list[tuple[Finding, Statement]]:
    """One finding per statement and rule for identical ones (a DO block of 500 UPDATEs,
    each located at the DO: one finding saying how many statements do it)."""
    first: dict[tuple[object, ...], tuple[Finding, Statement]] = {}
    count: Counter[tuple[object, ...]] = Counter()
    for finding, statement in raw:
        key = (statement.line, finding.code, finding.line, finding.column, finding.severity, finding.message)
        first.setdefault(key, (finding, statement))
        count[key] += 1
    return [(_times(f, count[key]), s) for key, (f, s) in first.items()]


def _times(finding: Finding, count: int) -> Finding:
    return (
        replace(finding, message=f"{finding.message} ({count} times in this statement.)")
        if count > 1
        else finding
    )


def _by_size(
    finding: Finding, statement: Statement, context: Context, limits: SizeThresholds, configured: bool
) -> Finding:
    """The finding with the table's size said, and (unless the configuration set the
    rule's severity) a milder severity for a small or medium table."""
    size = table_size(statement, context)
    if size is None:
        return finding
    severity = finding.severity if configured else scaled(finding.severity, size, limits)
    return replace(finding, severity=severity, message=f"{finding.message} ({size.note()}.)")


def _applies(rule: Rule, kind: type) -> bool:
    return not rule.node_types or issubclass(kind, rule.node_types)


def _checked(rule: Rule, statement: Statement, context: Context) -> list[Violation]:
    """The rule's violations; a crashing rule becomes one warning, never a traceback."""
    try:
        return list(rule.check(statement, context))
    except Exception as error:  # a bug in one rule must not stop the whole lint run
        message = f"The {rule.name} rule crashed on this statement ({type(error).__name__}: {error})."
        return [Violation(message, "Please report this bug; the statement was not checked by it.")]


def _apply_suppressions(
    raw: list[tuple[Finding, Statement]],
    suppressions: list[Suppression],
    file: str,
    rules: dict[str, _Enabled],
) -> list[Finding]:
    used: set[int] = set()
    kept = []
    for finding, statement in raw:
        first, last = _statement_lines(statement)
        hits = [i for i, s in enumerate(suppressions) if s.covers(finding.name, first, last)]
        used.update(hits)
        if not hits:
            kept.append(finding)
    kept.extend(_suppression_findings(suppressions, used, file, rules))
    return kept


def _statement_lines(statement: Statement) -> tuple[int, int]:
    if statement.in_do_block:
        return statement.line, statement.line
    return statement.line, statement.line + statement.sql.count("\n")


def _suppression_findings(
    suppressions: list[Suppression], used: set[int], file: str, rules: dict[str, _Enabled]
) -> Iterable[Finding]:
    for index, suppression in enumerate(suppressions):
        position = (suppression.line, suppression.column)
        if not suppression.reason and IGNORE_WITHOUT_REASON in rules:
            yield rules[IGNORE_WITHOUT_REASON].finding(file, position, _NO_REASON)
        if index in used or UNUSED_IGNORE not in rules:
            continue
        unused = _unused_names(suppression, rules)
        if unused:
            violation = Violation(
                f"This ignore comment suppresses nothing ({unused}).",
                "Remove the comment, or fix the rule name in the brackets.",
            )
            yield rules[UNUSED_IGNORE].finding(file, position, violation)


_NO_REASON = Violation(
    "This ignore comment does not say why the hazard is acceptable.",
    "Add a reason after the bracket: -- agentddl: ignore[rule-name] reason.",
)


def _unused_names(suppression: Suppression, rules: dict[str, _Enabled]) -> str:
    """Why the suppression is unused; '' when its rules are merely disabled in this run."""
    from agentddl.checks.lint.rules import rules_by_name

    known = rules_by_name()
    unknown = [name for name in suppression.rules if name not in known]
    if unknown:
        return "unknown rule " + ", ".join(unknown)
    enabled = [name for name in suppression.rules if name in rules and name not in REVISION_RULES]
    return "no " + ", ".join(enabled) + " finding here" if enabled else ""
