"""The ACH wing, run by operators: origination files (`originate`), settlement (`settle`), returns and notices of
change (`import_returns`), holds and the back-office actions on a transaction (operator_actions, admin). Each module
holds the services for one step. It may use the charges and risk wings and the kernel; nothing below imports it."""
