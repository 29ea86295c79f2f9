"""English date formats of the back office: Django's, with the time zone after every time ("2:54 p.m. EST")."""

DATETIME_FORMAT = "N j, Y, P T"
TIME_FORMAT = "P T"
SHORT_DATETIME_FORMAT = "m/d/Y P T"
