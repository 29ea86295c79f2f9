"""The charges wing, what a merchant asks of a transaction: charge (services, rules), void, reverse and refund
(reversal), retry, and their views. It may use the risk wing and the kernel; the ACH wing calls it."""
