"""The ACH lifecycle run by operators: origination files, settlement, returns and notices of change,
holds, exceptions and reversals. Each module holds the services for one step."""
