"""The schema the migrations (:mod:`.migrations`) create, one SQL script per step: the core tables,
FTS5 indexes with their triggers, file references, consolidation runs, the context archive."""

_KINDS = "'profile','fact','episode','experience'"
_STATUSES = "'active','resolving','archived','deleted'"
_TRUSTS = "'user_stated','user_confirmed','assistant_inferred','imported','external'"
_UPDATES = "'user_edit','conflict','duplicate','consolidate','decay','ttl','import'"
_ACTORS = "'user','capture','consolidator','import','system'"


CORE_SQL = f"""
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO store_meta(key, value) VALUES ('store_id', lower(hex(randomblob(16))));
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    incognito INTEGER NOT NULL DEFAULT 0,
    external_id TEXT UNIQUE
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool')),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    observed_at TEXT NOT NULL,
    redacted_at TEXT,
    external_id TEXT
);
CREATE INDEX messages_session ON messages(session_id, id);
CREATE UNIQUE INDEX messages_external ON messages(session_id, external_id) WHERE external_id IS NOT NULL;
CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ({_KINDS})),
    scope TEXT NOT NULL CHECK (length(scope) > 0),
    valid_at TEXT,
    invalid_at TEXT,
    created_at TEXT NOT NULL,
    expired_at TEXT,
    trust TEXT NOT NULL CHECK (trust IN ({_TRUSTS})),
    confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    content_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ({_STATUSES})),
    version INTEGER NOT NULL DEFAULT 1,
    expires_at TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    slot TEXT,
    use_count INTEGER NOT NULL DEFAULT 0,
    last_used_at TEXT,
    updated_at TEXT NOT NULL,
    update_type TEXT CHECK (update_type IS NULL OR update_type IN ({_UPDATES})),
    actor TEXT NOT NULL CHECK (actor IN ({_ACTORS})),
    reason TEXT
);
CREATE INDEX memories_hash ON memories(scope, content_hash);
CREATE INDEX memories_status_kind ON memories(status, kind);
CREATE INDEX memories_slot ON memories(scope, slot) WHERE slot IS NOT NULL;
CREATE INDEX memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_updated ON memories(updated_at);
CREATE TABLE memory_versions (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    kind TEXT NOT NULL,
    valid_at TEXT,
    invalid_at TEXT,
    expired_at TEXT,
    status TEXT NOT NULL,
    trust TEXT NOT NULL,
    confidence REAL NOT NULL,
    expires_at TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    slot TEXT,
    recorded_at TEXT NOT NULL,
    superseded_at TEXT NOT NULL,
    update_type TEXT,
    actor TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (memory_id, version)
);
CREATE INDEX memory_versions_span ON memory_versions(recorded_at, superseded_at);
CREATE TABLE memory_sources (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
    message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
    speaker TEXT NOT NULL,
    extractor TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    observed_at TEXT,
    added_at TEXT NOT NULL
);
CREATE INDEX memory_sources_memory ON memory_sources(memory_id);
CREATE INDEX memory_sources_message ON memory_sources(message_id);
CREATE INDEX memory_sources_session ON memory_sources(session_id);
CREATE TABLE entities (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    normalized TEXT NOT NULL UNIQUE,
    kind TEXT
);
CREATE TABLE memory_entities (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    PRIMARY KEY (memory_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX memory_entities_entity ON memory_entities(entity_id);
CREATE TABLE memory_links (
    src_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    dst_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    type TEXT NOT NULL CHECK (type IN ('evolve_to','derived_from','supersedes','related')),
    created_at TEXT NOT NULL,
    actor TEXT NOT NULL,
    PRIMARY KEY (src_id, dst_id, type)
) WITHOUT ROWID;
CREATE INDEX memory_links_dst ON memory_links(dst_id);
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL CHECK (actor IN ({_ACTORS})),
    action TEXT NOT NULL,
    memory_id INTEGER,
    session_id INTEGER,
    message_id INTEGER,
    update_type TEXT,
    from_version INTEGER,
    to_version INTEGER,
    details TEXT NOT NULL DEFAULT '{{}}',
    run_id TEXT
);
CREATE INDEX audit_memory ON audit_log(memory_id);
CREATE INDEX audit_session ON audit_log(session_id);
CREATE INDEX audit_run ON audit_log(run_id) WHERE run_id IS NOT NULL;
CREATE TABLE injection_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id TEXT NOT NULL,
    at TEXT NOT NULL,
    session_id INTEGER,
    message_id INTEGER,
    memory_id INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    score REAL NOT NULL,
    signals TEXT NOT NULL DEFAULT '{{}}',
    source_message_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX injection_turn ON injection_log(turn_id);
CREATE INDEX injection_memory ON injection_log(memory_id);
CREATE INDEX injection_session ON injection_log(session_id)
"""


FTS_SQL = """
CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, content='memories', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO memory_fts(memory_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memory_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memories_fts_au AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO memory_fts(rowid, text) VALUES (new.id, new.text);
END;
INSERT INTO memory_fts(memory_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE message_fts USING fts5(
    content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO message_fts(message_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN
    INSERT INTO message_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
    INSERT INTO message_fts(message_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO message_fts(message_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO message_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO message_fts(message_fts) VALUES ('rebuild')
"""


FILE_REFS_SQL = """
CREATE TABLE file_refs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    memory_id INTEGER,
    message_id INTEGER,
    session_id INTEGER,
    created_at TEXT NOT NULL
);
CREATE INDEX file_refs_memory ON file_refs(memory_id);
CREATE INDEX file_refs_message ON file_refs(message_id);
CREATE INDEX file_refs_session ON file_refs(session_id)
"""


CONSOLIDATION_RUNS_SQL = """
CREATE TABLE consolidation_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL UNIQUE,
    trigger TEXT NOT NULL,
    dry_run INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('running','finished','failed')),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    counts TEXT NOT NULL DEFAULT '{}',
    conflicts INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    errors INTEGER NOT NULL DEFAULT 0,
    undone INTEGER NOT NULL DEFAULT 0,
    undone_at TEXT,
    details TEXT NOT NULL DEFAULT '{}'
)
"""


CONTEXT_ARCHIVE_SQL = """
CREATE TABLE context_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_key TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    raw TEXT,
    UNIQUE (session_key, message_id)
);
CREATE TABLE context_offloads (
    ref TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    message_id INTEGER,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX context_offloads_session ON context_offloads(session_key);
CREATE INDEX context_offloads_message ON context_offloads(message_id) WHERE message_id IS NOT NULL;
CREATE TABLE context_state (
    session_key TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE note_versions (
    version INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    saved_at TEXT NOT NULL,
    restored_from INTEGER
);
CREATE TABLE exports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    created_at TEXT NOT NULL,
    memory_ids TEXT NOT NULL DEFAULT '[]',
    session_ids TEXT NOT NULL DEFAULT '[]'
);
INSERT OR IGNORE INTO store_meta(key, value) VALUES ('forget_generation', '0')
"""
