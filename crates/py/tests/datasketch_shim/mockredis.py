"""The `mockredis` module datasketch's Redis tests import: no fake Redis server here, so
a test that builds a client fails (those tests are listed as differences)."""


def mock_redis_client(**kwargs):
    raise NotImplementedError("the datasketch shim has no fake Redis server (mockredis is not installed)")
