# The network of Python tools: requests and urllib.request (and pandas' read_csv of a URL, which uses urllib) send
# each request to the host over the call's channel, where the guard that JavaScript's fetch goes through applies:
# public addresses only, resolved and pinned, every redirect re-checked, the profile's `network:`, time and size
# limits. The process itself has no network and may open no socket (jail.py); this is its only way out.
import email.message
import io
import urllib.error
import urllib.request
import urllib.response

import requests
import requests.adapters
import requests.structures
import requests.utils

# Held here: a call that replaces base64's functions changes its own code's, not the channel's.
from base64 import b64decode as _b64decode, b64encode as _b64encode


class HostRefused(OSError):
    """The host did not send the request: the guard or the profile refused its host, or a limit was reached."""


def install(exchange, max_body_bytes):
    """Route both libraries through `exchange(request) -> reply`, the call's channel to the host. A body over the
    host's limit is refused here, before it is sent."""

    def send(method, url, headers, body):
        if body is None:
            data = None
        elif isinstance(body, str):
            data = body.encode()
        elif isinstance(body, (bytes, bytearray)):
            data = bytes(body)
        else:
            data = b"".join(chunk.encode() if isinstance(chunk, str) else bytes(chunk) for chunk in body)
        if data is not None and len(data) > max_body_bytes:
            raise HostRefused(f"The request body is over the {max_body_bytes} byte limit.")
        reply = exchange(
            {
                "http": {
                    "method": method,
                    "url": url,
                    "headers": {str(name): str(value) for name, value in headers.items()},
                    "body": None if data is None else _b64encode(data).decode(),
                }
            }
        )
        if not reply.get("ok"):
            raise HostRefused(reply.get("error", "The request failed."))
        return reply, _b64decode(reply["body"])

    def adapter_send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        try:
            reply, content = send(request.method, request.url, request.headers, request.body)
        except HostRefused as error:
            raise requests.exceptions.ConnectionError(str(error), request=request) from None
        response = requests.models.Response()
        response.status_code = reply["status"]
        response.headers = requests.structures.CaseInsensitiveDict(reply["headers"])
        response.encoding = requests.utils.get_encoding_from_headers(response.headers)
        response.url = reply["url"]
        response.reason = reply.get("statusText", "")
        response.raw = io.BytesIO(content)
        response._content = content
        response._content_consumed = True
        response.request = request
        response.connection = self
        return response

    requests.adapters.HTTPAdapter.send = adapter_send

    class HostHandler(urllib.request.BaseHandler):
        def http_open(self, request):
            try:
                reply, content = send(request.get_method(), request.full_url, dict(request.header_items()), request.data)
            except HostRefused as error:
                raise urllib.error.URLError(str(error)) from None
            headers = email.message.Message()
            for name, value in reply["headers"].items():
                headers[name] = value
            response = urllib.response.addinfourl(io.BytesIO(content), headers, reply["url"], reply["status"])
            response.msg = reply.get("statusText", "")
            return response

        https_open = http_open

    # No file: or ftp: handler: a URL reaches the web through the host, or nothing.
    opener = urllib.request.OpenerDirector()
    for handler in (
        HostHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
        urllib.request.DataHandler(),
        urllib.request.UnknownHandler(),
    ):
        opener.add_handler(handler)
    urllib.request.install_opener(opener)
