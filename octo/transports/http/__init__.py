"""The HTTP client every remote family shares: requests, redirects, bodies within limits, retries, host policies and the state kept between requests."""
