"""The risk wing: the limits a charge meets (limits, credit_monitoring), account validation, and the return and
return-rate program (Nacha 2.17.2, 2.12.4, 2.2.4: return_rates, policies, account_rules, monitoring, report). It uses
only the kernel below it: a charge asks it, it never calls a charge."""
