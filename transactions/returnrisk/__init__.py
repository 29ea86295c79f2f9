"""The return and return-rate program (Nacha 2.17.2, 2.12.4, 2.2.4): rates, policies, alerts, retries."""
