"""Admin columns and form fields for figures: cents as dollars ($1,500.00), fractions as percentages (8.33%).
A money or rate column of an admin page is one of these, never the raw field."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import reduce

from django import forms
from django.contrib import admin

from vault.figures import dollars, percent


def _figure_column(field: str, suffix: str, show, description: str | None):
    path = field.split("__")  # a field of a related row: "merchant_settings__hold_over"

    @admin.display(description=description or path[-1].replace("_", " "), ordering=field)
    def column(self, obj) -> str:
        return show(reduce(getattr, path, obj))

    column.__name__ = f"{path[-1]}_{suffix}"
    return column


def money_column(field: str, description: str | None = None):
    """An admin method showing the cents field `field` (or `related__field`) as dollars, sortable by it."""
    return _figure_column(field, "dollars", dollars, description)


def rate_column(field: str, description: str | None = None):
    """An admin method showing the fraction field `field` (0.0833) as a percentage (8.33%), sortable by it."""
    return _figure_column(field, "percent", percent, description)


class LegibleFiguresMixin:
    """A ModelAdmin or inline whose `money_fields` (cents) and `rate_fields` (fractions) are shown as dollars and
    percentages wherever they appear: list columns, detail and inline fields (read-only there)."""

    money_fields: tuple[str, ...] = ()
    rate_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for field in cls.money_fields:
            setattr(cls, f"{field}_dollars", money_column(field))
        for field in cls.rate_fields:
            setattr(cls, f"{field}_percent", rate_column(field))

    def _legible_names(self) -> dict[str, str]:
        return {
            **{field: f"{field}_dollars" for field in self.money_fields},
            **{field: f"{field}_percent" for field in self.rate_fields},
        }

    def _legible(self, names) -> tuple:
        legible = self._legible_names()
        return tuple(dict.fromkeys(legible.get(name, name) if isinstance(name, str) else name for name in names))

    def get_list_display(self, request):
        return self._legible(super().get_list_display(request))

    def get_fields(self, request, obj=None):
        return self._legible(super().get_fields(request, obj))

    def get_readonly_fields(self, request, obj=None):
        return self._legible((*super().get_readonly_fields(request, obj), *self._legible_names().values()))


class DollarsField(forms.CharField):
    """A cents column edited in dollars: shows 1500000 as 15,000.00; takes "15000", "$15,000.00" or "15000.5"."""

    def __init__(self, *args, **kwargs):
        kwargs.pop("max_length", None)
        super().__init__(*args, **kwargs)
        if self.help_text:
            self.help_text = self.help_text.replace("many cents", "many dollars").replace("Cents", "Dollars")

    def prepare_value(self, value):
        if isinstance(value, int):
            return f"{value / 100:,.2f}"
        return value

    def to_python(self, value):
        text = (super().to_python(value) or "").strip().replace("$", "").replace(",", "")
        if not text:
            return None
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise forms.ValidationError("Enter an amount in dollars, such as 15000.00.") from None
        if amount != amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP):
            raise forms.ValidationError("Enter whole cents (at most two decimals).")
        return int(amount * 100)


class DollarsFormFieldsMixin:
    """A ModelAdmin (or inline) whose `money_fields` are cents columns edited in dollars."""

    money_fields: tuple[str, ...] = ()

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name in self.money_fields:
            return DollarsField(
                required=not db_field.blank, label=db_field.verbose_name.capitalize(), help_text=db_field.help_text
            )
        return super().formfield_for_dbfield(db_field, request, **kwargs)
