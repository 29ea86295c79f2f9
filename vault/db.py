"""Statements of the hottest paths, built once per database from the models instead of by the ORM on every call."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar
from uuid import UUID

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import (
    BigIntegerField,
    BooleanField,
    CharField,
    DateField,
    DateTimeField,
    Field,
    ForeignKey,
    ForeignObject,
    IntegerField,
    JSONField,
    Lookup,
    Model,
    Q,
    TextField,
    UUIDField,
)
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.db.models.signals import post_init, post_save, pre_init, pre_save
from django.db.models.sql import InsertQuery

# Django's field classes whose pre_save reads the attribute and whose get_db_prep_save gives back a value of this type,
# and None, as they are (exactly these classes: a subclass may convert, as the encrypted text field does).
_AS_IS: dict[type[Field], type] = {
    CharField: str,
    TextField: str,
    BooleanField: bool,
    IntegerField: int,
    BigIntegerField: int,
    ForeignKey: int,
}


# Django's field classes whose None is NULL on every database, and whose pre_save only reads the attribute unless
# they are auto_now or auto_now_add: a row's empty dates and uuids need neither call.
def _none_is_null(field: Field) -> bool:
    if type(field) is UUIDField:
        return True
    return type(field) in (DateField, DateTimeField) and not field.auto_now and not field.auto_now_add


class RowInsert:
    """Model.save(force_insert=True) for one model on a hot path: the same INSERT ... RETURNING, with the column
    list, placeholders and RETURNING clause built once per database rather than by Django's INSERT compiler on
    every save (on a charge that compiler spent about 0.4 ms of CPU re-deriving an unchanged statement from 60
    fields). Values still go through each field's pre_save and get_db_prep_save; a value that is an expression
    (an Exists) is compiled by Django's INSERT compiler, that value alone. Models with parents, custom
    placeholders or save signal receivers are saved the ordinary way."""

    def __init__(self, model: type[Model]) -> None:
        meta = model._meta
        self.model = model
        self.fields = [f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field]
        self.returning = meta.db_returning_fields
        self._as_is = [_AS_IS.get(type(field)) for field in self.fields]
        self._none_is_null = [_none_is_null(field) for field in self.fields]
        self.plain = (
            not meta.parents
            and not meta.order_with_respect_to
            and not any(hasattr(f, "get_placeholder") for f in self.fields)
        )
        self._statements: dict[str, tuple[str, str, list, list]] = {}

    def insert(self, obj: Model, *, using: str = DEFAULT_DB_ALIAS) -> None:
        if not self.prebuilt(obj):
            obj.save(force_insert=True, using=using)
            return
        connection = connections[using]
        sql, params = self.statement(obj, using=using)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = connection.ops.fetch_returned_insert_columns(cursor, self._statement(using)[2])
        self.returned(obj, row, using=using)

    def prebuilt(self, obj: Model) -> bool:
        """Whether `statement` may write `obj` (else Model.save does, for what this class does not cover)."""
        return self.plain and obj.pk is None and not _has_save_receivers(obj)

    def returned(self, obj: Model, row: Sequence[Any], *, using: str = DEFAULT_DB_ALIAS) -> None:
        """Sets on `obj` what its INSERT returned (`row`: the RETURNING columns in order) and marks it saved."""
        _, _, _, converters = self._statement(using)
        for field, value in zip(self.returning, _converted(row, converters, connections[using]), strict=True):
            setattr(obj, field.attname, value)
        obj._state.adding, obj._state.db = False, using

    def statement(self, obj: Model, *, using: str = DEFAULT_DB_ALIAS) -> tuple[str, list[Any]]:
        """The INSERT ... RETURNING of `obj` and its parameters, not run: a caller may make it part of a larger
        statement (a CTE), then hand what it returned to `returned`."""
        obj._prepare_related_fields_for_save(operation_name="save")
        connection = connections[using]
        head, tail, _returning_params, _converters = self._statement(using)
        placeholders, params, compiler = [], [], None
        for field, as_is, none_is_null in zip(self.fields, self._as_is, self._none_is_null, strict=True):
            if (as_is is not None or none_is_null) and (
                (value := getattr(obj, field.attname)) is None or type(value) is as_is
            ):
                # What the calls below would give back (about a third of a 56-column row's Python time).
                placeholders.append("NULL" if value is None else "%s")
                if value is not None:
                    params.append(value)
                continue
            value = field.pre_save(obj, add=True)
            if hasattr(value, "resolve_expression"):
                compiler = compiler or InsertQuery(self.model).get_compiler(using=using)
                sql, value_params = compiler.field_as_sql(field, None, compiler.prepare_value(field, value))
                placeholders.append(sql)
                params.extend(value_params)
            elif (prepared := field.get_db_prep_save(value, connection=connection)) is None:
                # NULL in the text, not a parameter: psycopg caches its parse of a statement only up to 50 of them.
                placeholders.append("NULL")
            else:
                placeholders.append("%s")
                params.append(prepared)
        return f"{head}{', '.join(placeholders)}{tail}", params

    def _statement(self, using: str) -> tuple[str, str, list, list]:
        if using not in self._statements:
            connection = connections[using]
            quote = connection.ops.quote_name
            table = self.model._meta.db_table
            columns = ", ".join(quote(f.column) for f in self.fields)
            returning_sql, returning_params = connection.ops.return_insert_columns(self.returning)
            converters = _converters([field.get_col(table) for field in self.returning], connection)
            self._statements[using] = (
                f"INSERT INTO {quote(table)} ({columns}) VALUES (",  # noqa: S608 (model names only; values are parameters)
                f") {returning_sql}",
                returning_params,
                converters,
            )
        return self._statements[using]


def _converters(columns: Sequence[Any], connection: Any) -> list[tuple[int, Any, Any]]:
    """(position, converter, column) for each database and field converter of the selected columns, as Django's
    compiler applies them to what it reads (decryption, SQLite's booleans and UUIDs)."""
    return [
        (index, convert, column)
        for index, column in enumerate(columns)
        for convert in connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    ]


def _converted(row: Sequence[Any], converters: list[tuple[int, Any, Any]], connection: Any) -> list[Any]:
    values = list(row)
    for index, convert, column in converters:
        values[index] = convert(values[index], column, connection)
    return values


def prepared_cursor(connection: Any):
    """For a statement of a hot path, written once with its parameters' types said: on PostgreSQL a cursor whose
    statements the server prepares after a few runs on the connection (parsing and planning the charge's three
    statements cost the server about as much as running them), elsewhere the ordinary cursor."""
    factory = getattr(connection, "prepared_cursor", None)
    return connection.cursor() if factory is None else factory()


def _has_save_receivers(obj: Model) -> bool:
    sender = type(obj)
    return pre_save.has_listeners(sender) or post_save.has_listeners(sender)


@dataclass(frozen=True)
class RowColumn:
    """One more value a RowLookup reads with its row, in the same statement: an SQL expression that may name the
    looked-up row's columns as `m.<column>` and the related row's as `r.<column>`, with its own parameters. It comes
    back as the driver reads it (no field converters)."""

    sql: str
    params: Sequence[Any] = ()


class RowLookup:
    """A hot path's read of one row found by a unique key, with the row one of its foreign keys points at:
    `model.objects.select_related(related).only(*fields, *related fields).filter(...)[:1]`, as a statement built
    once per database (Django spent about 0.4 ms of CPU building and compiling that queryset on every charge).
    `where` names the columns compared for equality, in the order `get` takes their values (a name with
    `related.` reads the related table's); `null` names columns that must be NULL. Values pass through each
    field's get_db_prep_value and come back through its converters (decryption included), as the ORM's would."""

    def __init__(
        self,
        model: type[Model],
        *,
        fields: Sequence[str],
        related: str,
        related_fields: Sequence[str],
        where: Sequence[str],
        null: Sequence[str] = (),
    ) -> None:
        self.model = model
        self.link = model._meta.get_field(related)
        self.related_model = self.link.related_model
        self.fields = _with_pk(model, fields)
        self.related_fields = _with_pk(self.related_model, related_fields)
        self.where = [self._column(name) for name in where]
        self.null = [self._column(name) for name in null]
        self._statements: dict[tuple[str, str | None], tuple[str, list]] = {}

    def _column(self, name: str) -> tuple[str, Field]:
        table, _, field = name.rpartition(".")
        model = self.related_model if table == "related" else self.model
        return ("r" if table == "related" else "m"), model._meta.get_field(field)

    def get(self, *values: Any, using: str = DEFAULT_DB_ALIAS) -> Model | None:
        return self.get_with(None, *values, using=using)[0]

    def get_with(
        self, column: RowColumn | None, *values: Any, using: str = DEFAULT_DB_ALIAS
    ) -> tuple[Model | None, Any]:
        """The row (None when nothing matches) and `column`'s value read with it (None without a column)."""
        connection = connections[using]
        sql, converters = self._statement(using, None if column is None else column.sql)
        params = [] if column is None else list(column.params)
        params += [
            field.get_db_prep_value(value, connection) for (_, field), value in zip(self.where, values, strict=True)
        ]
        with prepared_cursor(connection) as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None, None
        values = _converted(row, converters, connection)
        width, related_width = len(self.fields), len(self.related_fields)
        obj = self.model.from_db(using, [f.attname for f in self.fields], values[:width])
        related = self.related_model.from_db(
            using, [f.attname for f in self.related_fields], values[width : width + related_width]
        )
        self.link.set_cached_value(obj, related)
        return obj, (None if column is None else values[-1])

    def _statement(self, using: str, column_sql: str | None = None) -> tuple[str, list]:
        key = (using, column_sql)
        if key not in self._statements:
            connection = connections[using]
            quote = connection.ops.quote_name
            selected = [("m", f) for f in self.fields] + [("r", f) for f in self.related_fields]
            tables = {"m": self.model._meta.db_table, "r": self.related_model._meta.db_table}
            converters = _converters([field.get_col(alias) for alias, field in selected], connection)
            conditions = [f"{alias}.{quote(field.column)} = %s" for alias, field in self.where]
            conditions += [f"{alias}.{quote(field.column)} IS NULL" for alias, field in self.null]
            columns = [f"{alias}.{quote(field.column)}" for alias, field in selected]
            if column_sql is not None:
                columns.append(column_sql)
            sql = (
                f"SELECT {', '.join(columns)} "  # noqa: S608 (names and our own SQL only)
                f"FROM {quote(tables['m'])} m INNER JOIN {quote(tables['r'])} r "
                f"ON r.{quote(self.related_model._meta.pk.column)} = m.{quote(self.link.column)} "
                f"WHERE {' AND '.join(conditions)} LIMIT 1"
            )
            self._statements[key] = (sql, converters)
        return self._statements[key]


def _with_pk(model: type[Model], names: Sequence[str]) -> list[Field]:
    """The named fields and the primary key, in the model's column order (Model.from_db reads them in that order)."""
    wanted = {model._meta.pk, *(model._meta.get_field(name) for name in names)}
    return [field for field in model._meta.concrete_fields if field in wanted]


def ids_in(ids: Iterable[int], *, field: str = "pk", using: str = DEFAULT_DB_ALIAS) -> Q:
    """`field IN ids` for thousands of ids: one array parameter on PostgreSQL (psycopg binds and the server parses
    a placeholder per element of an ordinary IN list, which cost seconds per 100k ids), the plain IN elsewhere."""
    return values_in(ids, field=field, array_type="bigint", using=using)


@Field.register_lookup
class AnyOfArray(Lookup):
    """`field = ANY(array)`: the array is one parameter, and the server tests each row against it by a hash whatever
    plan it picks. `IN (SELECT unnest(array))` became a join, and when stale statistics put it inside a nested loop
    settling a late-return file compared every row with every id: 21 s for 20,000 ids instead of 0.1 s."""

    lookup_name = "any_of_array"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} = ANY({rhs})", [*lhs_params, *rhs_params]


ForeignObject.register_lookup(AnyOfArray)  # a foreign key keeps lookups of its own


# What `array_literal` writes (a datetime is a date).
_ARRAY_ELEMENT_TYPES = (str, int, bool, date, Decimal, UUID)


def array_literal(values: Iterable[Any]) -> str:
    """A PostgreSQL array as its text form, `{"1","2",NULL}`, for a `%s::type[]` parameter: psycopg dumps a list in
    Python element by element (about 9 us each, 0.19 s for 20,000 ids), this about a quarter of that. Every element
    is quoted and escaped, so any text is safe; None is NULL. Values are what get_db_prep_save gives (str, int, bool,
    date, datetime with its zone, Decimal, UUID)."""
    values = values if isinstance(values, list) else list(values)
    if all(type(value) is int for value in values):  # ids, the most common array: no quoting, no NULL
        return "{" + ",".join(map(str, values)) + "}"
    return "{" + ",".join("NULL" if value is None else _array_element(value) for value in values) + "}"


def _array_element(value: Any) -> str:
    if value is True or value is False:
        return "t" if value else "f"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        text = value  # its characters, also for a str enum (whose str() is its name)
    else:
        text = value.isoformat() if isinstance(value, date) else str(value)  # a datetime is a date
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def values_in(values: Iterable[Any], *, field: str, array_type: str, using: str = DEFAULT_DB_ALIAS) -> Q:
    """`field IN values` as one PostgreSQL array of `array_type` (a type name of our code, never input)."""
    if connections[using].vendor == "postgresql":
        return Q(**{f"{field}__any_of_array": RawSQL(f"%s::{array_type}[]", (array_literal(values),))})  # noqa: S611
    return Q(**{f"{field}__in": list(values)})


# Rows per UPDATE of `rows_update`: on PostgreSQL one array per column, elsewhere one statement per row.
ARRAY_UPDATE_CHUNK = 20_000
UPDATE_CHUNK = 500


def _update_rows_sql(model: type[Model], columns: Sequence[Field], connection: Any) -> str:
    """PostgreSQL: one UPDATE ... FROM unnest(one array per column) for a chunk of rows with their own values."""
    quote = connection.ops.quote_name
    names = [quote(column.column) for column in columns]
    arrays = ", ".join(f"%s::{column.cast_db_type(connection)}[]" for column in columns)
    assignments = ", ".join(f"{name} = u.{name}" for name in names)
    pk = quote(model._meta.pk.column)
    return (
        f"UPDATE {quote(model._meta.db_table)} AS t SET {assignments} "  # noqa: S608 - model names; values are parameters
        f"FROM unnest(%s::bigint[], {arrays}) AS u (u_pk, {', '.join(names)}) WHERE t.{pk} = u.u_pk"
    )


def rows_update(
    model: type[Model], objs: Sequence[Model], fields: Sequence[str], *, chunks=iter, using: str = DEFAULT_DB_ALIAS
) -> None:
    """Each object's own values of `fields` written to its row (objects need `pk` and those attributes; each pk once).
    PostgreSQL: one UPDATE ... FROM unnest per 20,000 rows; elsewhere one parameterised UPDATE per row through
    executemany. Django's bulk_update builds a CASE per row and field instead, which costs seconds per thousand
    rows. `chunks` wraps the list of chunks (a progress bar)."""
    connection = connections[using]
    columns = [model._meta.get_field(name) for name in fields]
    postgres = connection.vendor == "postgresql"
    size = ARRAY_UPDATE_CHUNK if postgres else UPDATE_CHUNK
    if postgres:
        sql = _update_rows_sql(model, columns, connection)
    else:
        quote = connection.ops.quote_name
        assignments = ", ".join(f"{quote(column.column)} = %s" for column in columns)
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        sql = f"UPDATE {table} SET {assignments} WHERE {pk} = %s"  # noqa: S608 - model names; values are parameters
    with connection.cursor() as cursor:
        for chunk in chunks([objs[start : start + size] for start in range(0, len(objs), size)]):
            values = [_column_values(column, chunk, connection) for column in columns]
            pks = [obj.pk for obj in chunk]
            if postgres:
                cursor.execute(sql, [array_literal(pks), *(array_literal(column) for column in values)])
            else:
                cursor.executemany(sql, [list(row) for row in zip(*values, pks, strict=True)])


# Rows per INSERT of `rows_insert` on PostgreSQL.
ARRAY_INSERT_CHUNK = 20_000


def rows_insert(model: type[Model], objs: Sequence[Model], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """bulk_create(objs) for a hot path, primary keys set alike. On PostgreSQL one INSERT ... SELECT FROM unnest per
    20,000 rows, each column's array sent as its text form (`array_literal`) and the values that need no conversion
    taken as they are (as RowInsert does): Django's bulk_create sends the same statement, but converts every value
    through its field and lets psycopg dump each array element by element, which was most of a return's insert.
    A JSON document goes as its text, which the server parses as it parses bulk_create's (a notice of change's two
    documents). Elsewhere, or when a value is an expression, bulk_create."""
    connection = connections[using]
    if not objs:
        return
    meta = model._meta
    fields = [f for f in meta.local_concrete_fields if not f.generated and f is not meta.auto_field]
    columns = _insert_columns(model, objs, fields, connection) if connection.vendor == "postgresql" else None
    if columns is None:
        model._base_manager.using(using).bulk_create(objs)
        return
    quote = connection.ops.quote_name
    arrays = ", ".join(f"%s::{field.cast_db_type(connection)}[]" for field in fields)
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "  # noqa: S608 - model names
        f"SELECT * FROM unnest({arrays}) RETURNING {quote(meta.pk.column)}"
    )
    with connection.cursor() as cursor:
        for start in range(0, len(objs), ARRAY_INSERT_CHUNK):
            cursor.execute(sql, [array_literal(column[start : start + ARRAY_INSERT_CHUNK]) for column in columns])
            for obj, (pk,) in zip(objs[start : start + ARRAY_INSERT_CHUNK], cursor.fetchall(), strict=True):
                obj.pk = pk
                obj._state.adding, obj._state.db = False, using


def _insert_columns(model: type[Model], objs: Sequence[Model], fields: list[Field], connection: Any) -> list | None:
    """Each field's values of `objs`, as the database takes them; None when one cannot go into a text array."""
    for obj in objs:
        obj._prepare_related_fields_for_save(operation_name="bulk_create")
    columns = [_column_values(field, objs, connection, adding=True) for field in fields]
    for values in columns:
        if any(
            hasattr(value, "resolve_expression") or not isinstance(value, _ARRAY_ELEMENT_TYPES)
            for value in values
            if value is not None
        ):
            return None
    return columns


def _column_values(field: Field, objs: Sequence[Model], connection: Any, *, adding: bool = False) -> list:
    """`field`'s values of `objs` as the database takes them: as they are when the field's class gives them back
    unchanged (about a third of the Python of a chunk's UPDATE or INSERT), a JSON document as its text (as Django's
    own adapter dumps it; the server parses it), else through the field (and its pre_save for an insert)."""
    values = [getattr(obj, field.attname) for obj in objs]
    if isinstance(field, JSONField) and not any(hasattr(value, "resolve_expression") for value in values):
        return [None if value is None else json.dumps(value, cls=field.encoder) for value in values]
    as_is = _AS_IS.get(type(field))
    if as_is is not None and all(value is None or type(value) is as_is for value in values):
        return values
    if adding:
        return [field.get_db_prep_save(field.pre_save(obj, add=True), connection=connection) for obj in objs]
    return [field.get_db_prep_save(value, connection=connection) for value in values]


# A command that changed at least this many rows of a table refreshes its planner statistics itself.
ANALYZE_AFTER_ROWS = 10_000


def statistics_refresh(model: type[Model], *, changed: int, using: str = DEFAULT_DB_ALIAS) -> None:
    """PostgreSQL, after a bulk change committed: ANALYZE the table (a sample of rows, about a second at a million)
    so the next statement is planned on what the table holds now. Without it, `import_returns` right after a
    million-entry `originate` planned its return-rate counts on "no entry has a batch" and ran 10 s a company."""
    connection = connections[using]
    if connection.vendor != "postgresql" or changed < ANALYZE_AFTER_ROWS or connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def loaded_instance(model: type[Model], values: dict[str, Any], *, using: str = DEFAULT_DB_ALIAS) -> Model:
    """A model instance as the ORM loads one, from its column values (attnames), without Model.__init__ (about
    25 us of CPU a transaction row, most of what `settle` once spent per entry). `values` become its own: pass
    copies of anything mutable that another instance shares."""
    obj = model.__new__(model)
    obj.__dict__.update(values)
    obj._state = ModelState()
    obj._state.adding, obj._state.db = False, using
    return obj


def unsaved_instance(model: type[Model], **values: Any) -> Model:
    """`model(**values)` for a row a hot path inserts (rows_insert), by attnames (`transaction_id`, never a related
    object), without Model.__init__ (about 25 us of CPU a row): the fields not given take their defaults. A model
    that something listens to the creation of (pre_init, post_init) is made the ordinary way."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model(**values)
    obj = model.__new__(model)
    state = obj.__dict__
    for field in model._meta.concrete_fields:
        if field.attname not in values:
            state[field.attname] = field.get_default()
    state.update(values)
    obj._state = ModelState()
    return obj


K = TypeVar("K", bound=Hashable)


def drift_rechecked(
    kept: Callable[[Sequence[K] | None], dict[K, int]],
    counted: Callable[[Sequence[K] | None], dict[K, int]],
    *,
    counted_table: str,
    repair: Callable[[K, int], None] | None,
) -> list[tuple[K, int, int]]:
    """A trigger-kept counter against what it counts: `kept(keys)` and `counted(keys)` answer {key: value} for those
    keys (None: all). The first comparison runs without locks, so a write committing between the two reads can make a
    key look wrong; each suspect is compared again under a SHARE lock on `counted_table` on PostgreSQL (its writers
    wait the moment one key takes, and no uncommitted write is missed) and, if still wrong, reported as (key, kept,
    counted) and given to `repair` with the counted value."""
    first_kept, first_counted = kept(None), counted(None)
    keys = first_kept.keys() | first_counted.keys()
    suspects = sorted(key for key in keys if first_kept.get(key, 0) != first_counted.get(key, 0))
    drifted = []
    for key in suspects:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute(f"LOCK TABLE {connection.ops.quote_name(counted_table)} IN SHARE MODE")
            now_kept, now_counted = kept([key]).get(key, 0), counted([key]).get(key, 0)
            if now_kept == now_counted:
                continue
            drifted.append((key, now_kept, now_counted))
            if repair is not None:
                repair(key, now_counted)
    return drifted
