<?php
defined( 'ABSPATH' ) || exit;

/**
 * Calls the Punchcard server with the secret key. Every answer is either the decoded JSON or a
 * WP_Error carrying Punchcard's own message, which the admin page shows as it is.
 */
final class Punchcard_Loyalty_Client {
	/** The admin page waits for connect (which checks the store and registers webhooks) at most this long. */
	const TIMEOUT_SECONDS = 20;
	/** Storefront pages (settings, My Account) wait at most this long, so a Punchcard outage cannot stall the shop. */
	const PAGE_TIMEOUT_SECONDS = 5;

	private string $url;
	private string $secret_key;

	public function __construct( string $url, string $secret_key ) {
		$this->url        = untrailingslashit( $url );
		$this->secret_key = $secret_key;
	}

	public static function from_options(): self {
		$o = Punchcard_Loyalty_Options::all();
		return new self( $o['url'], $o['secret_key'] );
	}

	/** @return array|WP_Error */
	public function request( string $method, string $path, ?array $body = null, int $timeout = self::TIMEOUT_SECONDS ) {
		$args = array(
			'method'  => $method,
			'timeout' => $timeout,
			'headers' => array(
				'Authorization' => 'Bearer ' . $this->secret_key,
				'Accept'        => 'application/json',
			),
		);
		if ( null !== $body ) {
			$args['headers']['Content-Type'] = 'application/json';
			$args['body']                    = wp_json_encode( $body );
		}
		// Not wp_safe_remote_request: the Punchcard server may well sit on the shop's own network.
		$response = wp_remote_request( $this->url . $path, $args );
		if ( is_wp_error( $response ) ) {
			return new WP_Error(
				'punchcard_unreachable',
				/* translators: 1: Punchcard URL, 2: the network error */
				sprintf( __( 'Punchcard at %1$s could not be reached: %2$s', 'punchcard-loyalty' ), $this->url, $response->get_error_message() )
			);
		}
		$status  = (int) wp_remote_retrieve_response_code( $response );
		$decoded = json_decode( wp_remote_retrieve_body( $response ), true );
		if ( $status >= 200 && $status < 300 && is_array( $decoded ) ) {
			return $decoded;
		}
		$message = is_array( $decoded ) && isset( $decoded['message'] ) && is_string( $decoded['message'] )
			? $decoded['message']
			/* translators: 1: HTTP status, 2: request path */
			: sprintf( __( 'Punchcard answered HTTP %1$d to %2$s.', 'punchcard-loyalty' ), $status, $path );
		return new WP_Error( 'punchcard_' . $status, $message, array( 'status' => $status ) );
	}
}
