"""The run database's schema: versioned SQL, applied as migrations when a store opens.

The schema is public (users query it with plain SQL; docs/schema.md documents it), so
a change is a new entry in `MIGRATIONS` that moves a version N database to N + 1;
never edit an applied migration. `PRAGMA user_version` holds the version and
`PRAGMA application_id` marks the file as a scigate run database.
"""

from __future__ import annotations

#: Marks a SQLite file as a scigate run database ("SGRD" as a big-endian int32).
APPLICATION_ID = 0x53475244

#: The schema version this scigate writes; a database with a higher one is refused.
SCHEMA_VERSION = 7

#: Columns that hold JSON text; `Store.query` decodes them when it sees these names.
JSON_COLUMNS = frozenset(
    {"config", "detail", "options", "meta", "settings", "messages", "tools", "response", "data"}
)

_V1 = """
CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,                     -- gate | rescreen | agent-eval | ...
    domain      TEXT,
    config      TEXT NOT NULL DEFAULT '{}',        -- JSON
    status      TEXT NOT NULL DEFAULT 'running',   -- running | finished | failed | interrupted
    created_at  REAL NOT NULL,
    finished_at REAL
);

CREATE TABLE candidates (
    id           TEXT PRIMARY KEY,                 -- content hash, see candidate_id()
    run_id       TEXT REFERENCES runs(id),         -- the run that first produced it
    question     TEXT NOT NULL,
    options      TEXT NOT NULL,                    -- JSON {"A": .., "B": .., "C": .., "D": ..}
    answer       TEXT NOT NULL,                    -- proposed option letter
    answer_value TEXT NOT NULL DEFAULT '',
    solution     TEXT NOT NULL DEFAULT '',
    meta         TEXT NOT NULL DEFAULT '{}',       -- JSON
    family       TEXT,
    generator    TEXT,
    question_key TEXT NOT NULL,                    -- normalized question (exact duplicates)
    duplicate_of TEXT REFERENCES candidates(id),   -- earliest candidate with this question_key
    created_at   REAL NOT NULL
);
CREATE INDEX candidates_question_key ON candidates(question_key);
CREATE INDEX candidates_run ON candidates(run_id);

CREATE TABLE attempts (
    id           INTEGER PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs(id),
    round        INTEGER NOT NULL,
    candidate_id TEXT REFERENCES candidates(id),
    status       TEXT NOT NULL,                    -- candidate | generator-failed | ...
    reason       TEXT NOT NULL DEFAULT '',
    detail       TEXT NOT NULL DEFAULT '{}',       -- JSON
    seconds      REAL NOT NULL DEFAULT 0,
    created_at   REAL NOT NULL,
    UNIQUE (run_id, round)
);
CREATE INDEX attempts_candidate ON attempts(candidate_id);

CREATE TABLE gate_results (
    id           INTEGER PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs(id),
    candidate_id TEXT NOT NULL REFERENCES candidates(id),
    gate         TEXT NOT NULL,                    -- verify | screen | solve | ...
    screen       TEXT NOT NULL DEFAULT '',         -- screen model spec / solver spec / ''
    outcome      TEXT NOT NULL,                    -- pass | fail | error
    reason       TEXT NOT NULL DEFAULT '',
    detail       TEXT NOT NULL DEFAULT '{}',       -- JSON
    seconds      REAL NOT NULL DEFAULT 0,
    created_at   REAL NOT NULL,
    UNIQUE (run_id, candidate_id, gate, screen)
);
CREATE INDEX gate_results_candidate ON gate_results(candidate_id, gate);

CREATE TABLE model_calls (
    id                  INTEGER PRIMARY KEY,
    run_id              TEXT REFERENCES runs(id),
    candidate_id        TEXT,
    role                TEXT NOT NULL DEFAULT '', -- generator | screen | solver | agent | judge
    call_key            TEXT UNIQUE,              -- lets a resumed run find a call it made
    spec                TEXT NOT NULL,
    settings            TEXT NOT NULL DEFAULT '{}', -- JSON
    messages            TEXT NOT NULL DEFAULT '[]', -- JSON
    tools               TEXT,                     -- JSON or NULL
    response            TEXT,                     -- JSON or NULL (on error)
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cost                REAL,                     -- USD; NULL when the price is unknown
    latency             REAL NOT NULL DEFAULT 0,
    error               TEXT,
    started_at          REAL,
    created_at          REAL NOT NULL
);
CREATE INDEX model_calls_run_role ON model_calls(run_id, role);
CREATE INDEX model_calls_candidate ON model_calls(candidate_id);

CREATE TABLE events (
    id         INTEGER PRIMARY KEY,
    run_id     TEXT,
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',        -- JSON
    created_at REAL NOT NULL
);
CREATE INDEX events_run ON events(run_id, kind);

-- The latest result of each (candidate, gate, screen), across all runs.
CREATE VIEW v_gate_latest AS
SELECT id, run_id, candidate_id, gate, screen, outcome, reason, detail, seconds, created_at
FROM (
    SELECT g.*, ROW_NUMBER() OVER (
        PARTITION BY candidate_id, gate, screen ORDER BY created_at DESC, id DESC
    ) AS rn
    FROM gate_results g
)
WHERE rn = 1;

-- One row per candidate: its latest verify / screen / solve outcomes and a status.
CREATE VIEW v_candidate_status AS
WITH latest AS (SELECT candidate_id, gate, screen, outcome, reason FROM v_gate_latest),
v AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'verify'),
s AS (
    SELECT candidate_id,
           COUNT(*) AS screens_run,
           SUM(outcome = 'pass') AS screens_passed,
           SUM(outcome = 'fail') AS screens_failed,
           SUM(outcome = 'error') AS screens_errored,
           group_concat(CASE WHEN outcome = 'fail' THEN screen END, ' ') AS solved_by_screens
    FROM latest WHERE gate = 'screen' GROUP BY candidate_id
),
so AS (
    SELECT candidate_id,
           CASE WHEN SUM(outcome = 'pass') > 0 THEN 'pass'
                WHEN SUM(outcome = 'fail') > 0 THEN 'fail'
                ELSE 'error' END AS outcome,
           group_concat(reason, '; ') AS reason
    FROM latest WHERE gate = 'solve' GROUP BY candidate_id
),
joined AS (
    SELECT c.id AS candidate_id, c.run_id, c.family, c.generator, c.answer, c.question_key,
           c.duplicate_of, c.created_at,
           v.outcome AS verify, v.reason AS verify_reason,
           COALESCE(s.screens_run, 0) AS screens_run,
           COALESCE(s.screens_passed, 0) AS screens_passed,
           CASE WHEN s.screens_failed > 0 THEN 'fail'
                WHEN s.screens_errored > 0 THEN 'error'
                WHEN s.screens_passed > 0 THEN 'pass' END AS screen,
           s.solved_by_screens,
           so.outcome AS solve, so.reason AS solve_reason
    FROM candidates c
    LEFT JOIN v ON v.candidate_id = c.id
    LEFT JOIN s ON s.candidate_id = c.id
    LEFT JOIN so ON so.candidate_id = c.id
)
SELECT *,
       CASE WHEN verify IS NULL THEN 'pending'
            WHEN verify = 'fail' THEN 'rejected-verify'
            WHEN verify = 'error' THEN 'error-verify'
            WHEN screen = 'fail' THEN 'rejected-screen'
            WHEN screen = 'error' THEN 'error-screen'
            WHEN solve IS NULL THEN 'pending'
            WHEN solve = 'pass' THEN 'accepted'
            WHEN solve = 'fail' THEN 'rejected-solve'
            ELSE 'error-solve' END AS status
FROM joined
ORDER BY created_at, candidate_id;

-- One row per run: how many attempts survive each gate of that run.
CREATE VIEW v_funnel AS
WITH per AS (
    SELECT run_id, candidate_id,
           MAX(gate = 'verify' AND outcome = 'pass') AS verified,
           SUM(gate = 'screen') AS screens,
           SUM(gate = 'screen' AND outcome != 'pass') AS screens_not_passed,
           MAX(gate = 'solve' AND outcome = 'pass') AS solved
    FROM gate_results GROUP BY run_id, candidate_id
),
agg AS (
    SELECT per.run_id,
           SUM(verified) AS verified,
           SUM(verified AND screens > 0 AND screens_not_passed = 0) AS screen_passed,
           SUM(verified AND screens_not_passed = 0 AND solved) AS accepted,
           COUNT(DISTINCT CASE WHEN verified AND screens_not_passed = 0 AND solved
                               THEN c.question_key END) AS accepted_unique
    FROM per JOIN candidates c ON c.id = per.candidate_id
    GROUP BY per.run_id
),
att AS (
    SELECT run_id, COUNT(*) AS attempts, COUNT(DISTINCT candidate_id) AS candidates
    FROM attempts GROUP BY run_id
)
SELECT r.id AS run_id, r.kind, r.domain, r.status,
       COALESCE(att.attempts, 0) AS attempts,
       COALESCE(att.candidates, 0) AS candidates,
       COALESCE(agg.verified, 0) AS verified,
       COALESCE(agg.screen_passed, 0) AS screen_passed,
       COALESCE(agg.accepted, 0) AS accepted,
       COALESCE(agg.accepted_unique, 0) AS accepted_unique
FROM runs r
LEFT JOIN att ON att.run_id = r.id
LEFT JOIN agg ON agg.run_id = r.id;

-- Every rejection and error, counted by run, stage and reason.
CREATE VIEW v_rejections AS
SELECT run_id, 'generator' AS stage, status AS outcome, reason, COUNT(*) AS n
FROM attempts WHERE status != 'candidate'
GROUP BY run_id, status, reason
UNION ALL
SELECT run_id, gate AS stage, outcome, reason, COUNT(*) AS n
FROM gate_results WHERE outcome != 'pass'
GROUP BY run_id, gate, outcome, reason;

-- Calls, errors, tokens, cost and latency by run, role and model spec.
CREATE VIEW v_model_usage AS
SELECT run_id, role, spec,
       COUNT(*) AS calls,
       SUM(error IS NOT NULL) AS errors,
       SUM(input_tokens) AS input_tokens,
       SUM(output_tokens) AS output_tokens,
       SUM(reasoning_tokens) AS reasoning_tokens,
       SUM(cost) AS cost,
       SUM(cost IS NULL) AS unpriced_calls,
       SUM(latency) AS latency
FROM model_calls
GROUP BY run_id, role, spec;
"""


_V2 = """
-- The generator's own working time per round, apart from the round's wall time (which
-- includes queueing and the later gates); agent-hours of "generate" sum this column.
ALTER TABLE attempts ADD COLUMN gen_seconds REAL NOT NULL DEFAULT 0;
-- Older gate runs recorded the generator's time in the attempt's detail.
UPDATE attempts SET gen_seconds = COALESCE(
    json_extract(detail, '$.generation.seconds'), json_extract(detail, '$.seconds'), 0)
WHERE run_id IN (SELECT id FROM runs WHERE kind = 'gate');

DROP VIEW v_candidate_status;
-- One row per candidate: its latest verify / screen / solve outcomes and a status
-- (v2: a candidate rejected as a near duplicate before gate 1 is 'rejected-duplicate').
CREATE VIEW v_candidate_status AS
WITH latest AS (SELECT candidate_id, gate, screen, outcome, reason FROM v_gate_latest),
v AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'verify'),
d AS (SELECT candidate_id, outcome FROM latest WHERE gate = 'duplicate'),
s AS (
    SELECT candidate_id,
           COUNT(*) AS screens_run,
           SUM(outcome = 'pass') AS screens_passed,
           SUM(outcome = 'fail') AS screens_failed,
           SUM(outcome = 'error') AS screens_errored,
           group_concat(CASE WHEN outcome = 'fail' THEN screen END, ' ') AS solved_by_screens
    FROM latest WHERE gate = 'screen' GROUP BY candidate_id
),
so AS (
    SELECT candidate_id,
           CASE WHEN SUM(outcome = 'pass') > 0 THEN 'pass'
                WHEN SUM(outcome = 'fail') > 0 THEN 'fail'
                ELSE 'error' END AS outcome,
           group_concat(reason, '; ') AS reason
    FROM latest WHERE gate = 'solve' GROUP BY candidate_id
),
joined AS (
    SELECT c.id AS candidate_id, c.run_id, c.family, c.generator, c.answer, c.question_key,
           c.duplicate_of, c.created_at,
           v.outcome AS verify, v.reason AS verify_reason,
           COALESCE(s.screens_run, 0) AS screens_run,
           COALESCE(s.screens_passed, 0) AS screens_passed,
           CASE WHEN s.screens_failed > 0 THEN 'fail'
                WHEN s.screens_errored > 0 THEN 'error'
                WHEN s.screens_passed > 0 THEN 'pass' END AS screen,
           s.solved_by_screens,
           so.outcome AS solve, so.reason AS solve_reason,
           d.outcome AS duplicate
    FROM candidates c
    LEFT JOIN v ON v.candidate_id = c.id
    LEFT JOIN s ON s.candidate_id = c.id
    LEFT JOIN so ON so.candidate_id = c.id
    LEFT JOIN d ON d.candidate_id = c.id
)
SELECT *,
       CASE WHEN verify IS NULL AND duplicate = 'fail' THEN 'rejected-duplicate'
            WHEN verify IS NULL THEN 'pending'
            WHEN verify = 'fail' THEN 'rejected-verify'
            WHEN verify = 'error' THEN 'error-verify'
            WHEN screen = 'fail' THEN 'rejected-screen'
            WHEN screen = 'error' THEN 'error-screen'
            WHEN solve IS NULL THEN 'pending'
            WHEN solve = 'pass' THEN 'accepted'
            WHEN solve = 'fail' THEN 'rejected-solve'
            ELSE 'error-solve' END AS status
FROM joined
ORDER BY created_at, candidate_id;
"""

# Version 3: gate 1b (gate = 'invariance') is a stage of its own in the views: a
# candidate whose latest invariance result is not a pass is neither screened-through nor
# accepted. Only the two views change; the tables stay as they are.
_V3 = """
DROP VIEW v_candidate_status;
DROP VIEW v_funnel;

-- One row per candidate: its latest verify / invariance / screen / solve outcomes and a status
-- (a near-duplicate rejected before gate 1 is 'rejected-duplicate', as in v2).
CREATE VIEW v_candidate_status AS
WITH latest AS (SELECT candidate_id, gate, screen, outcome, reason FROM v_gate_latest),
v AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'verify'),
i AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'invariance'),
d AS (SELECT candidate_id, outcome FROM latest WHERE gate = 'duplicate'),
s AS (
    SELECT candidate_id,
           COUNT(*) AS screens_run,
           SUM(outcome = 'pass') AS screens_passed,
           SUM(outcome = 'fail') AS screens_failed,
           SUM(outcome = 'error') AS screens_errored,
           group_concat(CASE WHEN outcome = 'fail' THEN screen END, ' ') AS solved_by_screens
    FROM latest WHERE gate = 'screen' GROUP BY candidate_id
),
so AS (
    SELECT candidate_id,
           CASE WHEN SUM(outcome = 'pass') > 0 THEN 'pass'
                WHEN SUM(outcome = 'fail') > 0 THEN 'fail'
                ELSE 'error' END AS outcome,
           group_concat(reason, '; ') AS reason
    FROM latest WHERE gate = 'solve' GROUP BY candidate_id
),
joined AS (
    SELECT c.id AS candidate_id, c.run_id, c.family, c.generator, c.answer, c.question_key,
           c.duplicate_of, c.created_at,
           v.outcome AS verify, v.reason AS verify_reason,
           i.outcome AS invariance, i.reason AS invariance_reason,
           COALESCE(s.screens_run, 0) AS screens_run,
           COALESCE(s.screens_passed, 0) AS screens_passed,
           CASE WHEN s.screens_failed > 0 THEN 'fail'
                WHEN s.screens_errored > 0 THEN 'error'
                WHEN s.screens_passed > 0 THEN 'pass' END AS screen,
           s.solved_by_screens,
           so.outcome AS solve, so.reason AS solve_reason,
           d.outcome AS duplicate
    FROM candidates c
    LEFT JOIN v ON v.candidate_id = c.id
    LEFT JOIN i ON i.candidate_id = c.id
    LEFT JOIN s ON s.candidate_id = c.id
    LEFT JOIN so ON so.candidate_id = c.id
    LEFT JOIN d ON d.candidate_id = c.id
)
SELECT *,
       CASE WHEN verify IS NULL AND duplicate = 'fail' THEN 'rejected-duplicate'
            WHEN verify IS NULL THEN 'pending'
            WHEN verify = 'fail' THEN 'rejected-verify'
            WHEN verify = 'error' THEN 'error-verify'
            WHEN invariance = 'fail' THEN 'rejected-invariance'
            WHEN invariance = 'error' THEN 'error-invariance'
            WHEN screen = 'fail' THEN 'rejected-screen'
            WHEN screen = 'error' THEN 'error-screen'
            WHEN solve IS NULL THEN 'pending'
            WHEN solve = 'pass' THEN 'accepted'
            WHEN solve = 'fail' THEN 'rejected-solve'
            ELSE 'error-solve' END AS status
FROM joined
ORDER BY created_at, candidate_id;

-- One row per run: how many attempts survive each gate of that run.
CREATE VIEW v_funnel AS
WITH per AS (
    SELECT run_id, candidate_id,
           MAX(gate = 'verify' AND outcome = 'pass') AS verified,
           SUM(gate = 'invariance') AS invariance_runs,
           SUM(gate = 'invariance' AND outcome != 'pass') AS invariance_not_passed,
           SUM(gate = 'screen') AS screens,
           SUM(gate = 'screen' AND outcome != 'pass') AS screens_not_passed,
           MAX(gate = 'solve' AND outcome = 'pass') AS solved
    FROM gate_results GROUP BY run_id, candidate_id
),
agg AS (
    SELECT per.run_id,
           SUM(verified) AS verified,
           SUM(verified AND invariance_runs > 0 AND invariance_not_passed = 0) AS invariant,
           SUM(verified AND invariance_not_passed = 0 AND screens > 0
               AND screens_not_passed = 0) AS screen_passed,
           SUM(verified AND invariance_not_passed = 0 AND screens_not_passed = 0
               AND solved) AS accepted,
           COUNT(DISTINCT CASE WHEN verified AND invariance_not_passed = 0
                                    AND screens_not_passed = 0 AND solved
                               THEN c.question_key END) AS accepted_unique
    FROM per JOIN candidates c ON c.id = per.candidate_id
    GROUP BY per.run_id
),
att AS (
    SELECT run_id, COUNT(*) AS attempts, COUNT(DISTINCT candidate_id) AS candidates
    FROM attempts GROUP BY run_id
)
SELECT r.id AS run_id, r.kind, r.domain, r.status,
       COALESCE(att.attempts, 0) AS attempts,
       COALESCE(att.candidates, 0) AS candidates,
       COALESCE(agg.verified, 0) AS verified,
       COALESCE(agg.invariant, 0) AS invariant,
       COALESCE(agg.screen_passed, 0) AS screen_passed,
       COALESCE(agg.accepted, 0) AS accepted,
       COALESCE(agg.accepted_unique, 0) AS accepted_unique
FROM runs r
LEFT JOIN att ON att.run_id = r.id
LEFT JOIN agg ON agg.run_id = r.id;
"""

# Version 4: expert review (`scigate review`). People's verdicts live in tables of their
# own, next to the machine's: nothing here changes a gate result or a view above.
_V4 = """
-- Everyone who has reviewed (or may review), identified by name.
CREATE TABLE reviewers (
    name       TEXT PRIMARY KEY,
    created_at REAL NOT NULL
);

-- One verdict of one reviewer on one criterion of one item under a review protocol;
-- a reviewer changing their mind replaces their row (updated_at moves, created_at stays).
CREATE TABLE reviews (
    id         INTEGER PRIMARY KEY,
    item_id    TEXT NOT NULL,                  -- candidate id (gate) or task id (bench)
    item_kind  TEXT NOT NULL,                  -- candidate | task
    protocol   TEXT NOT NULL,                  -- toolgate | openscitoolbench
    reviewer   TEXT NOT NULL REFERENCES reviewers(name),
    criterion  TEXT NOT NULL,
    verdict    TEXT NOT NULL CHECK (verdict IN ('yes', 'no', 'unsure')),
    note       TEXT NOT NULL DEFAULT '',
    source     TEXT NOT NULL DEFAULT 'web',    -- web | csv
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (item_id, protocol, reviewer, criterion)
);
CREATE INDEX reviews_item ON reviews(item_id, protocol);

-- A protocol's decision rule where it differs from the default (3 reviewers).
CREATE TABLE review_rules (
    protocol   TEXT PRIMARY KEY,
    reviewers  INTEGER NOT NULL CHECK (reviewers >= 1),
    updated_at REAL NOT NULL
);
"""

# Version 5 (issue 23): one outcome vocabulary (scigate.store._outcomes, docs/outcomes.md).
# v_candidate_status names a candidate the tool gate did not solve `unsolved` (the
# attempts' and the report's name, was `rejected-solve`), one waiting for a screen
# `pending`, and one through every screen `screened` while a tool gate ran elsewhere or
# `accepted` when none ran in the database (the release's pool). v_funnel counts each
# run as the CLI's funnel does (per attempt; without a tool gate in the run, passing
# every screen is acceptance) and gains the funnel's other stages. Tables are unchanged.
# (Its own entry: renumbering it is changing its key in MIGRATIONS and SCHEMA_VERSION.)
_V5 = """
DROP VIEW v_candidate_status;
DROP VIEW v_funnel;

-- One row per candidate: its latest outcome per gate and its status (docs/outcomes.md).
CREATE VIEW v_candidate_status AS
WITH latest AS (SELECT candidate_id, gate, screen, outcome, reason FROM v_gate_latest),
v AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'verify'),
i AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'invariance'),
d AS (SELECT candidate_id, outcome FROM latest WHERE gate = 'duplicate'),
s AS (
    SELECT candidate_id,
           COUNT(*) AS screens_run,
           SUM(outcome = 'pass') AS screens_passed,
           SUM(outcome = 'fail') AS screens_failed,
           SUM(outcome = 'error') AS screens_errored,
           group_concat(CASE WHEN outcome = 'fail' THEN screen END, ' ') AS solved_by_screens
    FROM latest WHERE gate = 'screen' GROUP BY candidate_id
),
so AS (
    SELECT candidate_id,
           CASE WHEN SUM(outcome = 'pass') > 0 THEN 'pass'
                WHEN SUM(outcome = 'fail') > 0 THEN 'fail'
                ELSE 'error' END AS outcome,
           group_concat(reason, '; ') AS reason
    FROM latest WHERE gate = 'solve' GROUP BY candidate_id
),
db AS (
    SELECT (SELECT COUNT(DISTINCT screen) FROM gate_results WHERE gate = 'screen') AS screens,
           EXISTS (SELECT 1 FROM gate_results WHERE gate = 'solve') AS any_solve
),
joined AS (
    SELECT c.id AS candidate_id, c.run_id, c.family, c.generator, c.answer, c.question_key,
           c.duplicate_of, c.created_at,
           v.outcome AS verify, v.reason AS verify_reason,
           i.outcome AS invariance, i.reason AS invariance_reason,
           COALESCE(s.screens_run, 0) AS screens_run,
           COALESCE(s.screens_passed, 0) AS screens_passed,
           CASE WHEN s.screens_failed > 0 THEN 'fail'
                WHEN s.screens_errored > 0 THEN 'error'
                WHEN s.screens_passed > 0 THEN 'pass' END AS screen,
           s.solved_by_screens,
           so.outcome AS solve, so.reason AS solve_reason,
           d.outcome AS duplicate,
           db.screens AS screens_known, db.any_solve
    FROM candidates c CROSS JOIN db
    LEFT JOIN v ON v.candidate_id = c.id
    LEFT JOIN i ON i.candidate_id = c.id
    LEFT JOIN s ON s.candidate_id = c.id
    LEFT JOIN so ON so.candidate_id = c.id
    LEFT JOIN d ON d.candidate_id = c.id
)
SELECT candidate_id, run_id, family, generator, answer, question_key, duplicate_of,
       created_at, verify, verify_reason, invariance, invariance_reason, screens_run,
       screens_passed, screen, solved_by_screens, solve, solve_reason, duplicate,
       CASE WHEN verify IS NULL AND duplicate = 'fail' THEN 'rejected-duplicate'
            WHEN verify IS NULL THEN 'pending'
            WHEN verify = 'fail' THEN 'rejected-verify'
            WHEN verify = 'error' THEN 'error-verify'
            WHEN invariance = 'fail' THEN 'rejected-invariance'
            WHEN invariance = 'error' THEN 'error-invariance'
            WHEN screen = 'fail' THEN 'rejected-screen'
            WHEN screen = 'error' THEN 'error-screen'
            WHEN screens_run < screens_known THEN 'pending'
            WHEN solve = 'pass' THEN 'accepted'
            WHEN solve = 'fail' THEN 'unsolved'
            WHEN solve = 'error' THEN 'error-solve'
            WHEN any_solve THEN 'screened'
            ELSE 'accepted' END AS status
FROM joined
ORDER BY created_at, candidate_id;

-- One row per run: the CLI's funnel of that run (scigate.gate._funnel.funnel_of_run),
-- counted per attempt (generation round).
CREATE VIEW v_funnel AS
WITH res AS (
    SELECT run_id, candidate_id,
           MAX(gate = 'verify' AND outcome = 'pass') AS verified,
           SUM(gate = 'invariance' AND outcome = 'pass') AS invariance_passed,
           SUM(gate = 'screen') AS screens,
           SUM(gate = 'screen' AND outcome = 'pass') AS screens_passed,
           SUM(gate = 'solve') AS solves,
           MAX(gate = 'solve' AND outcome = 'pass') AS solved
    FROM gate_results GROUP BY run_id, candidate_id
),
run AS (
    SELECT r.id, r.kind, r.domain, r.status,
           EXISTS (SELECT 1 FROM gate_results g
                   WHERE g.run_id = r.id AND g.gate = 'invariance') AS invariance,
           (json_extract(r.config, '$.solver') IS NOT NULL
            OR json_extract(r.config, '$.solver_cmd') IS NOT NULL
            OR EXISTS (SELECT 1 FROM gate_results g
                       WHERE g.run_id = r.id AND g.gate = 'solve')) AS tool_gate,
           COALESCE(json_array_length(r.config, '$.screens'),
                    (SELECT COUNT(DISTINCT g.screen) FROM gate_results g
                     WHERE g.run_id = r.id AND g.gate = 'screen')) AS screens
    FROM runs r
),
per AS (
    SELECT a.run_id, a.status, c.question_key,
           a.candidate_id IS NOT NULL AS generated,
           a.status = 'rejected-duplicate' AS near_duplicate,
           a.candidate_id IS NOT NULL AND a.status != 'rejected-duplicate'
               AND (run.kind = 'rescreen' OR COALESCE(res.verified, 0)) AS verified,
           COALESCE(res.invariance_passed, 0) > 0 AS invariant,
           run.invariance, run.tool_gate,
           COALESCE(res.screens_passed, 0) >= run.screens
               AND COALESCE(res.screens, 0) = COALESCE(res.screens_passed, 0) AS screens_ok,
           COALESCE(res.solves, 0) AS solves, COALESCE(res.solved, 0) AS solved
    FROM attempts a JOIN run ON run.id = a.run_id
    LEFT JOIN res ON res.run_id = a.run_id AND res.candidate_id = a.candidate_id
    LEFT JOIN candidates c ON c.id = a.candidate_id
),
alive AS (
    SELECT *, verified AND (invariant OR NOT invariance) AND screens_ok AS screened,
           verified AND (invariant OR NOT invariance) AND screens_ok
               AND (solved OR (solves = 0 AND NOT tool_gate)) AS accepted
    FROM per
),
agg AS (
    SELECT run_id,
           COUNT(*) AS attempts,
           SUM(generated) AS generated,
           SUM(status = 'generator-failed') AS generator_failed,
           SUM(status = 'error') AS errors,
           SUM(near_duplicate) AS near_duplicates,
           SUM(verified) AS verified,
           SUM(verified AND invariance AND invariant) AS invariant,
           SUM(screened) AS screen_passed,
           SUM(screened AND solves > 0 AND solved) AS solved,
           SUM(screened AND solves > 0 AND NOT solved) AS unsolved,
           SUM(accepted) AS accepted,
           COUNT(DISTINCT CASE WHEN accepted THEN question_key END) AS accepted_unique
    FROM alive GROUP BY run_id
),
cand AS (
    SELECT run_id, COUNT(DISTINCT candidate_id) AS candidates FROM attempts GROUP BY run_id
)
SELECT run.id AS run_id, run.kind, run.domain, run.status,
       COALESCE(agg.attempts, 0) AS attempts,
       COALESCE(cand.candidates, 0) AS candidates,
       COALESCE(agg.generated, 0) AS generated,
       COALESCE(agg.generator_failed, 0) AS generator_failed,
       COALESCE(agg.near_duplicates, 0) AS near_duplicates,
       COALESCE(agg.verified, 0) AS verified,
       COALESCE(agg.invariant, 0) AS invariant,
       COALESCE(agg.screen_passed, 0) AS screen_passed,
       COALESCE(agg.solved, 0) AS solved,
       COALESCE(agg.unsolved, 0) AS unsolved,
       COALESCE(agg.accepted, 0) AS accepted,
       COALESCE(agg.accepted_unique, 0) AS accepted_unique,
       COALESCE(agg.accepted, 0) - COALESCE(agg.accepted_unique, 0) AS duplicates,
       COALESCE(agg.errors, 0) AS errors
FROM run
LEFT JOIN agg ON agg.run_id = run.id
LEFT JOIN cand ON cand.run_id = run.id;
"""

# Version 6 (issue 25): a database holding several domains releases each domain's
# survivors. v_candidate_status counted every screen of the database (`screens_known`)
# and any tool gate in it against every candidate, so a chemistry candidate never run
# through a FEniCSx-only screen stayed `pending` and never reached the pool. Now a
# candidate's domain is its run's (`runs.domain`, '' when none), and the screens it must
# pass and whether a tool gate applies are those that ran on its domain's candidates
# (`scigate.gate._audit.pool_scopes` is the same rule in Python). One domain: unchanged.
_V6 = """
DROP VIEW v_candidate_status;

-- One row per candidate: its latest outcome per gate and its status (docs/outcomes.md);
-- v6: the screens it waits for and the tool gate are those of its own run's domain.
CREATE VIEW v_candidate_status AS
WITH latest AS (SELECT candidate_id, gate, screen, outcome, reason FROM v_gate_latest),
v AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'verify'),
i AS (SELECT candidate_id, outcome, reason FROM latest WHERE gate = 'invariance'),
d AS (SELECT candidate_id, outcome FROM latest WHERE gate = 'duplicate'),
s AS (
    SELECT candidate_id,
           COUNT(*) AS screens_run,
           SUM(outcome = 'pass') AS screens_passed,
           SUM(outcome = 'fail') AS screens_failed,
           SUM(outcome = 'error') AS screens_errored,
           group_concat(CASE WHEN outcome = 'fail' THEN screen END, ' ') AS solved_by_screens
    FROM latest WHERE gate = 'screen' GROUP BY candidate_id
),
so AS (
    SELECT candidate_id,
           CASE WHEN SUM(outcome = 'pass') > 0 THEN 'pass'
                WHEN SUM(outcome = 'fail') > 0 THEN 'fail'
                ELSE 'error' END AS outcome,
           group_concat(reason, '; ') AS reason
    FROM latest WHERE gate = 'solve' GROUP BY candidate_id
),
dom AS (
    SELECT c.id AS candidate_id, COALESCE(r.domain, '') AS domain
    FROM candidates c LEFT JOIN runs r ON r.id = c.run_id
),
db AS (
    SELECT dom.domain,
           COUNT(DISTINCT CASE WHEN g.gate = 'screen' THEN g.screen END) AS screens,
           COALESCE(MAX(g.gate = 'solve'), 0) AS any_solve
    FROM dom LEFT JOIN gate_results g ON g.candidate_id = dom.candidate_id
    GROUP BY dom.domain
),
joined AS (
    SELECT c.id AS candidate_id, c.run_id, c.family, c.generator, c.answer, c.question_key,
           c.duplicate_of, c.created_at,
           v.outcome AS verify, v.reason AS verify_reason,
           i.outcome AS invariance, i.reason AS invariance_reason,
           COALESCE(s.screens_run, 0) AS screens_run,
           COALESCE(s.screens_passed, 0) AS screens_passed,
           CASE WHEN s.screens_failed > 0 THEN 'fail'
                WHEN s.screens_errored > 0 THEN 'error'
                WHEN s.screens_passed > 0 THEN 'pass' END AS screen,
           s.solved_by_screens,
           so.outcome AS solve, so.reason AS solve_reason,
           d.outcome AS duplicate,
           db.screens AS screens_known, db.any_solve
    FROM candidates c
    JOIN dom ON dom.candidate_id = c.id
    JOIN db ON db.domain = dom.domain
    LEFT JOIN v ON v.candidate_id = c.id
    LEFT JOIN i ON i.candidate_id = c.id
    LEFT JOIN s ON s.candidate_id = c.id
    LEFT JOIN so ON so.candidate_id = c.id
    LEFT JOIN d ON d.candidate_id = c.id
)
SELECT candidate_id, run_id, family, generator, answer, question_key, duplicate_of,
       created_at, verify, verify_reason, invariance, invariance_reason, screens_run,
       screens_passed, screen, solved_by_screens, solve, solve_reason, duplicate,
       CASE WHEN verify IS NULL AND duplicate = 'fail' THEN 'rejected-duplicate'
            WHEN verify IS NULL THEN 'pending'
            WHEN verify = 'fail' THEN 'rejected-verify'
            WHEN verify = 'error' THEN 'error-verify'
            WHEN invariance = 'fail' THEN 'rejected-invariance'
            WHEN invariance = 'error' THEN 'error-invariance'
            WHEN screen = 'fail' THEN 'rejected-screen'
            WHEN screen = 'error' THEN 'error-screen'
            WHEN screens_run < screens_known THEN 'pending'
            WHEN solve = 'pass' THEN 'accepted'
            WHEN solve = 'fail' THEN 'unsolved'
            WHEN solve = 'error' THEN 'error-solve'
            WHEN any_solve THEN 'screened'
            ELSE 'accepted' END AS status
FROM joined
ORDER BY created_at, candidate_id;
"""

# Version 7 (issue 36): a call answered from the response cache (scigate.llm's
# `response_cache`) is recorded with `cached = 1`, its original tokens and cost 0: no
# request went out, and the cost view counts it apart.
_V7 = """
ALTER TABLE model_calls ADD COLUMN cached INTEGER NOT NULL DEFAULT 0;
"""

#: MIGRATIONS[n] turns a version n - 1 database into version n (1 creates the schema).
MIGRATIONS: dict[int, str] = {1: _V1, 2: _V2, 3: _V3, 4: _V4, 5: _V5, 6: _V6, 7: _V7}

assert max(MIGRATIONS) == SCHEMA_VERSION
