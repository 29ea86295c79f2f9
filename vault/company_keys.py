"""company_id in every key of a merchant-owned table, at the database level (CONTRACT 8, Citus readiness).

Django 5.2 cannot point a ForeignKey at a model with a composite primary key, so the models keep `id` as their
primary key and `company_keys(...)` changes the keys underneath, on PostgreSQL only (SQLite keeps Django's):
- the primary key becomes PRIMARY KEY (id, company_id);
- each unique field and unique constraint gets company_id appended: UNIQUE (uuid, company_id), ...;
- each foreign key between two merchant-owned tables becomes FOREIGN KEY (x_id, company_id) REFERENCES
  parent (id, company_id) DEFERRABLE INITIALLY DEFERRED, so a row can never point into another company.
The formerly unique column stays first, so `WHERE id = ...` and joins on `x_id = id` keep using the same index.
Constraint names stay Django's, so a later RemoveConstraint by name still works.

What it reads is the migration state of the models it is given (not the database), so both directions are
deterministic. A later migration that adds a merchant-owned table, or a foreign key to one, must end with
`company_keys(...)` for it (Django alone would emit REFERENCES parent (id), which no longer has a unique index of
its own): see docs/configuration.md, "Worth knowing"."""

from __future__ import annotations

from django.db import migrations, models

COMPANY_COLUMN = "company_id"
FK_SUFFIX = "_fk_%(to_table)s_%(to_column)s"


def is_merchant_owned(model) -> bool:
    return any(field.column == COMPANY_COLUMN for field in model._meta.local_fields)


def _foreign_keys(apps, labels: set[str]) -> list[tuple[type[models.Model], models.Field]]:
    """Foreign keys between two merchant-owned models, at least one of them among `labels`."""
    found = []
    for model in apps.get_models():
        if not is_merchant_owned(model):
            continue
        for field in model._meta.local_fields:
            if not (isinstance(field, models.ForeignKey) and field.db_constraint):
                continue
            parent = field.related_model
            if is_merchant_owned(parent) and labels & {model._meta.label_lower, parent._meta.label_lower}:
                found.append((model, field))
    return found


def _unique_constraints(model) -> list[models.UniqueConstraint]:
    return [
        constraint
        for constraint in model._meta.constraints
        if isinstance(constraint, models.UniqueConstraint)
        and constraint.fields
        and not {"company", COMPANY_COLUMN} & set(constraint.fields)
    ]


def _with_company(constraint: models.UniqueConstraint) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=[*constraint.fields, "company"], condition=constraint.condition, name=constraint.name
    )


def _rekey(schema_editor, model, scoped: bool) -> None:
    """Rebuild the primary key and unique fields of `model` with company_id appended (scoped) or without it."""
    quote = schema_editor.quote_name
    table = model._meta.db_table
    for field in model._meta.local_fields:
        if not (field.primary_key or field.unique):
            continue
        current = [field.column, COMPANY_COLUMN] if not scoped else [field.column]
        wanted = [field.column] if not scoped else [field.column, COMPANY_COLUMN]
        kind = "PRIMARY KEY" if field.primary_key else "UNIQUE"
        unique = None if field.primary_key else True
        if schema_editor._constraint_names(model, wanted, primary_key=field.primary_key, unique=unique):
            continue  # already so (a table keyed by an earlier call)
        names = schema_editor._constraint_names(model, current, primary_key=field.primary_key, unique=unique)
        if len(names) != 1:
            raise ValueError(f"{table}: expected one {kind} on {current}, found {names}")
        schema_editor.execute(
            f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(names[0])}, "
            f"ADD CONSTRAINT {quote(names[0])} {kind} ({', '.join(quote(c) for c in wanted)})"
        )
    for constraint in _unique_constraints(model):
        old, new = (constraint, _with_company(constraint)) if scoped else (_with_company(constraint), constraint)
        schema_editor.remove_constraint(model, old)
        schema_editor.add_constraint(model, new)


def _add_company_fk(schema_editor, model, field) -> None:
    if schema_editor._constraint_names(model, [field.column, COMPANY_COLUMN], foreign_key=True):
        return
    quote = schema_editor.quote_name
    parent = field.related_model
    name = str(schema_editor._fk_constraint_name(model, field, FK_SUFFIX))
    schema_editor.execute(
        f"ALTER TABLE {quote(model._meta.db_table)} ADD CONSTRAINT {quote(name)} "
        f"FOREIGN KEY ({quote(field.column)}, {COMPANY_COLUMN}) "
        f"REFERENCES {quote(parent._meta.db_table)} ({quote(field.target_field.column)}, {COMPANY_COLUMN}) "
        "DEFERRABLE INITIALLY DEFERRED"
    )


def _drop_fks(schema_editor, foreign_keys, columns_of) -> None:
    for model, field in foreign_keys:
        for name in schema_editor._constraint_names(model, columns_of(field), foreign_key=True):
            schema_editor.execute(schema_editor._delete_fk_sql(model, name))


def _with_company_column(field) -> list[str]:
    return [field.column, COMPANY_COLUMN]


def company_keys(*labels: str) -> migrations.RunPython:
    """A migration operation putting company_id into the keys of the models `labels` ("app.Model") and into the
    foreign keys between them and other merchant-owned models; reversed, it restores Django's keys."""
    wanted = {label.lower() for label in labels}

    def forward(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        foreign_keys = _foreign_keys(apps, wanted)
        _drop_fks(schema_editor, foreign_keys, lambda field: [field.column])
        for label in labels:
            _rekey(schema_editor, apps.get_model(label), scoped=True)
        for model, field in foreign_keys:
            _add_company_fk(schema_editor, model, field)

    def backward(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        foreign_keys = _foreign_keys(apps, wanted)
        _drop_fks(schema_editor, foreign_keys, _with_company_column)
        for label in labels:
            _rekey(schema_editor, apps.get_model(label), scoped=False)
        for model, field in foreign_keys:
            # A parent keyed by an earlier migration keeps (id, company_id): the reversed CreateModel drops the
            # child table anyway.
            if field.related_model._meta.label_lower in wanted:
                schema_editor.execute(schema_editor._create_fk_sql(model, field, FK_SUFFIX))

    return migrations.RunPython(forward, backward, elidable=False)


def company_foreign_key(label: str, field_name: str) -> migrations.RunPython:
    """A migration operation adding FOREIGN KEY (x_id, company_id) for a new foreign key `field_name` of the model
    `label` to a merchant-owned model (added with db_constraint=False on the database side:
    docs/configuration.md); reversed, it drops it."""

    def forward(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            model = apps.get_model(label)
            _add_company_fk(schema_editor, model, model._meta.get_field(field_name))

    def backward(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            model = apps.get_model(label)
            _drop_fks(schema_editor, [(model, model._meta.get_field(field_name))], _with_company_column)

    return migrations.RunPython(forward, backward, elidable=False)
