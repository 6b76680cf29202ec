<?php
defined( 'ABSPATH' ) || exit;

/**
 * The WooCommerce REST API key Punchcard reads orders and creates coupons with. Made the way
 * WooCommerce's own "Add key" screen makes one (WC_Auth::create_keys): the consumer key is stored
 * hashed with wc_api_hash(), the secret as it is, for the administrator who connects, read/write.
 * It shows in WooCommerce → Settings → Advanced → REST API as "Punchcard Loyalty".
 */
final class Punchcard_Loyalty_Rest_Keys {
	const DESCRIPTION = 'Punchcard Loyalty';

	/** @return array{0:int,1:string,2:string}|WP_Error [key id, consumer key, consumer secret] */
	public static function create( int $user_id ) {
		global $wpdb;
		if ( ! function_exists( 'wc_rand_hash' ) || ! function_exists( 'wc_api_hash' ) ) {
			return new WP_Error( 'punchcard_no_woocommerce', __( 'WooCommerce is not active, so no REST API key can be made.', 'punchcard-loyalty' ) );
		}
		$consumer_key    = 'ck_' . wc_rand_hash();
		$consumer_secret = 'cs_' . wc_rand_hash();
		$inserted        = $wpdb->insert(
			$wpdb->prefix . 'woocommerce_api_keys',
			array(
				'user_id'         => $user_id,
				'description'     => self::DESCRIPTION,
				'permissions'     => 'read_write',
				'consumer_key'    => wc_api_hash( $consumer_key ),
				'consumer_secret' => $consumer_secret,
				'truncated_key'   => substr( $consumer_key, -7 ),
			),
			array( '%d', '%s', '%s', '%s', '%s', '%s' )
		);
		if ( false === $inserted ) {
			return new WP_Error( 'punchcard_rest_key', __( 'Could not create a WooCommerce REST API key. Create one under WooCommerce → Settings → Advanced → REST API (read/write) and enter it here.', 'punchcard-loyalty' ) );
		}
		return array( (int) $wpdb->insert_id, $consumer_key, $consumer_secret );
	}

	public static function delete( int $key_id ): void {
		global $wpdb;
		if ( $key_id > 0 ) {
			$wpdb->delete( $wpdb->prefix . 'woocommerce_api_keys', array( 'key_id' => $key_id ), array( '%d' ) );
		}
	}
}
