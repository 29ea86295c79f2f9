"""Routes of the transaction lifecycle (reversal); filled by the lifecycle work."""
urlpatterns: list = []
