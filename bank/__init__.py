"""The bank connection (CONTRACT 16): NACHA files go to the ODFI over SFTP, its acknowledgements, returns and notices of
change come back, and a simulator plays the bank for tests and demos."""
