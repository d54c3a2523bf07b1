"""The SQLite-dialect statements as PostgreSQL gets them (store/postgres/dialect.py)."""

from __future__ import annotations

import json

from orma_proxy.store.postgres.dialect import translate


def test_placeholders_become_psycopg_ones_and_percent_signs_are_doubled() -> None:
    statement = translate("SELECT value FROM meta WHERE key LIKE 'embed_%' AND value = ?")
    assert statement.sql == "SELECT value FROM meta WHERE key ILIKE 'embed_%%' AND value = %s"
    assert statement.bind(("x",)) == (statement.sql, ["x"])


def test_named_and_numbered_placeholders_bind_by_name() -> None:
    named = translate("SELECT :a, :b::text, ':c' FROM t")
    assert named.sql == "SELECT %(a)s, %(b)s::text, ':c' FROM t"
    numbered = translate("SELECT ?1 WHERE x = ?1 AND y = ?2")
    sql, values = numbered.bind(("a", "b"))
    assert sql == "SELECT %(p1)s WHERE x = %(p1)s AND y = %(p2)s"
    assert values == {"p1": "a", "p2": "b"}


def test_a_json_list_for_json_each_binds_as_a_typed_array() -> None:
    statement = translate("SELECT id FROM s WHERE id IN (SELECT value FROM json_each(?)) AND z = ?")
    sql, values = statement.bind((json.dumps([3, 1]), True))
    assert sql == (
        "SELECT id FROM s WHERE id IN (SELECT value FROM unnest(%s::bigint[]) AS json_each(value)) "
        "AND z = %s"
    )
    assert values == [[3, 1], 1]  # a bool binds as the 0/1 SQLite stored
    sql, values = statement.bind((json.dumps(["ann"]), False))
    assert "unnest(%s::text[])" in sql
    assert values == [["ann"], 0]


def test_json_each_as_a_table_keeps_its_alias() -> None:
    statement = translate("SELECT a.value FROM json_each(:asked) a CROSS JOIN s ON s.x = a.value")
    sql, _ = statement.bind({"asked": "[1]"})
    assert sql == (
        "SELECT a.value FROM unnest(%(asked)s::bigint[]) AS a(value) JOIN s ON s.x = a.value"
    )


def test_scalar_max_and_min_and_unary_plus_and_begin() -> None:
    assert translate("SELECT max(id), max(coalesce(a, 0), ?) FROM t").sql == (
        "SELECT max(id), greatest(coalesce(a, 0), %s) FROM t"
    )
    assert translate("SELECT min(a, b)").sql == "SELECT least(a, b)"
    assert translate("SELECT 1 WHERE +space = ? AND a + b = 2").sql == (
        "SELECT 1 WHERE space = %s AND a + b = 2"
    )
    assert translate("BEGIN IMMEDIATE").sql == "BEGIN"


def test_string_literals_are_left_as_they_are() -> None:
    statement = translate("SELECT 'a ? :b LIKE max(1, 2)' WHERE c = ?")
    assert statement.sql == "SELECT 'a ? :b LIKE max(1, 2)' WHERE c = %s"
