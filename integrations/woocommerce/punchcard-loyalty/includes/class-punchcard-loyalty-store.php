<?php
defined( 'ABSPATH' ) || exit;

/**
 * The store's connection to Punchcard (/api/commerce/*) and the store settings Punchcard keeps
 * (points per dollar, show in account, …), cached here so pages do not call Punchcard each time.
 */
final class Punchcard_Loyalty_Store {
	/** Store settings changed on the Punchcard side reach the shop within this many seconds. */
	const SETTINGS_TTL_SECONDS = 600;

	/**
	 * Connects with the saved URL and secret key: finds the key's project, makes (or takes) the
	 * WooCommerce REST key Punchcard reads the store with, and registers the store.
	 *
	 * @return array|WP_Error the store record
	 */
	public static function connect( string $consumer_key = '', string $consumer_secret = '' ) {
		$client  = Punchcard_Loyalty_Client::from_options();
		$project = $client->request( 'GET', '/api/v1/project' );
		if ( is_wp_error( $project ) ) {
			return $project;
		}
		if ( ! isset( $project['id'] ) || ! is_string( $project['id'] ) ) {
			return new WP_Error( 'punchcard_not_punchcard', __( 'The Punchcard URL does not answer like a Punchcard server: check the address.', 'punchcard-loyalty' ) );
		}
		$created_key = 0;
		if ( '' === $consumer_key ) {
			$key = Punchcard_Loyalty_Rest_Keys::create( get_current_user_id() );
			if ( is_wp_error( $key ) ) {
				return $key;
			}
			list( $created_key, $consumer_key, $consumer_secret ) = $key;
		}
		$store = $client->request(
			'POST',
			'/api/commerce/connect',
			array(
				'siteUrl'        => home_url(),
				'consumerKey'    => $consumer_key,
				'consumerSecret' => $consumer_secret,
				'organizationId' => $project['id'],
			)
		);
		if ( ! is_wp_error( $store ) && ( ! isset( $store['id'] ) || ! is_string( $store['id'] ) ) ) {
			$store = new WP_Error( 'punchcard_not_punchcard', __( 'Punchcard answered the connection without a store id: is the server up to date?', 'punchcard-loyalty' ) );
		}
		if ( is_wp_error( $store ) ) {
			// A key Punchcard never took is of no use to anyone.
			Punchcard_Loyalty_Rest_Keys::delete( $created_key );
			return $store;
		}
		// A reconnect replaces the key an earlier connect made.
		$previous = (int) Punchcard_Loyalty_Options::get( 'rest_key_id' );
		if ( $previous > 0 && $previous !== $created_key ) {
			Punchcard_Loyalty_Rest_Keys::delete( $previous );
		}
		Punchcard_Loyalty_Options::update(
			array(
				'organization_id' => $project['id'],
				'store_id'        => $store['id'],
				'webhooks'        => isset( $store['webhooks'] ) && is_array( $store['webhooks'] ) ? $store['webhooks'] : array(),
				'rest_key_id'     => $created_key,
				'settings_read'   => 0,
			)
		);
		self::settings( true );
		return $store;
	}

	/** @return true|WP_Error */
	public static function disconnect() {
		$answer = Punchcard_Loyalty_Client::from_options()->request( 'DELETE', '/api/commerce/connect' );
		if ( is_wp_error( $answer ) && 404 !== ( $answer->get_error_data()['status'] ?? 0 ) ) {
			return $answer;
		}
		Punchcard_Loyalty_Rest_Keys::delete( (int) Punchcard_Loyalty_Options::get( 'rest_key_id' ) );
		Punchcard_Loyalty_Options::update(
			array(
				'store_id'       => '',
				'webhooks'       => array(),
				'rest_key_id'    => 0,
				'store_settings' => null,
				'settings_read'  => 0,
			)
		);
		return true;
	}

	/**
	 * The store settings, from the cache while fresh. When Punchcard cannot be reached the last
	 * known settings stay in use (null before the first read).
	 *
	 * @return array|WP_Error|null
	 */
	public static function settings( bool $refresh = false ) {
		$o = Punchcard_Loyalty_Options::all();
		if ( ! Punchcard_Loyalty_Options::connected() ) {
			return null;
		}
		if ( ! $refresh && is_array( $o['store_settings'] ) && time() - (int) $o['settings_read'] < self::SETTINGS_TTL_SECONDS ) {
			return $o['store_settings'];
		}
		$answer = Punchcard_Loyalty_Client::from_options()->request(
			'GET',
			'/api/commerce/stores/' . rawurlencode( $o['store_id'] ) . '/settings',
			null,
			$refresh ? Punchcard_Loyalty_Client::TIMEOUT_SECONDS : Punchcard_Loyalty_Client::PAGE_TIMEOUT_SECONDS
		);
		if ( is_wp_error( $answer ) ) {
			if ( $refresh ) {
				return $answer;
			}
			// Keep the last known settings and try again only after another TTL, not on every page view.
			Punchcard_Loyalty_Options::update( array( 'settings_read' => time() ) );
			return $o['store_settings'];
		}
		return self::remember( $answer );
	}

	/** @return array|WP_Error the settings after the change */
	public static function update_settings( array $changes ) {
		$answer = Punchcard_Loyalty_Client::from_options()->request(
			'PATCH',
			'/api/commerce/stores/' . rawurlencode( Punchcard_Loyalty_Options::get( 'store_id' ) ) . '/settings',
			$changes
		);
		return is_wp_error( $answer ) ? $answer : self::remember( $answer );
	}

	/** Reads a store setting with a fallback when the settings are not known. */
	public static function setting( string $name, $fallback ) {
		$settings = self::settings();
		return is_array( $settings ) && array_key_exists( $name, $settings ) ? $settings[ $name ] : $fallback;
	}

	private static function remember( array $answer ): array {
		$settings = isset( $answer['settings'] ) && is_array( $answer['settings'] ) ? $answer['settings'] : array();
		Punchcard_Loyalty_Options::update(
			array(
				'store_settings' => $settings,
				'settings_read'  => time(),
			)
		);
		return $settings;
	}
}
