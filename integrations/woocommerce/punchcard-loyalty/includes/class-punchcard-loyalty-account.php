<?php
defined( 'ABSPATH' ) || exit;

/**
 * "Points" in My Account: the customer's balance and latest transactions, read from Punchcard's
 * server API with the secret key (never from the browser). Shown only while the store setting
 * showInAccount is on.
 */
final class Punchcard_Loyalty_Account {
	const ENDPOINT      = 'loyalty-points';
	const HISTORY_LIMIT = 20;

	public static function register(): void {
		add_action( 'init', array( self::class, 'add_endpoint' ) );
		add_filter( 'woocommerce_account_menu_items', array( self::class, 'menu_items' ) );
		add_action( 'woocommerce_account_' . self::ENDPOINT . '_endpoint', array( self::class, 'render' ) );
	}

	public static function add_endpoint(): void {
		add_rewrite_endpoint( self::ENDPOINT, EP_ROOT | EP_PAGES );
	}

	private static function shown(): bool {
		return Punchcard_Loyalty_Options::connected() && true === Punchcard_Loyalty_Store::setting( 'showInAccount', false );
	}

	/** Adds "Points" before "Log out". */
	public static function menu_items( $items ) {
		if ( ! is_array( $items ) || ! self::shown() ) {
			return $items;
		}
		$logout = isset( $items['customer-logout'] ) ? array( 'customer-logout' => $items['customer-logout'] ) : array();
		unset( $items['customer-logout'] );
		return array_merge( $items, array( self::ENDPOINT => __( 'Points', 'punchcard-loyalty' ) ), $logout );
	}

	public static function render(): void {
		if ( ! self::shown() || ! is_user_logged_in() ) {
			return;
		}
		$external_id = Punchcard_Loyalty_Widget::external_id( wp_get_current_user() );
		$answer      = Punchcard_Loyalty_Client::from_options()->request(
			'GET',
			'/api/v1/members/' . rawurlencode( $external_id ) . '/points?history=true&limit=' . self::HISTORY_LIMIT,
			null,
			Punchcard_Loyalty_Client::PAGE_TIMEOUT_SECONDS
		);
		echo '<section class="punchcard-loyalty-points">';
		if ( is_wp_error( $answer ) ) {
			// A customer Punchcard has not met yet simply has no points.
			if ( 404 === ( $answer->get_error_data()['status'] ?? 0 ) ) {
				echo '<p class="punchcard-loyalty-balance">' . esc_html__( 'You have no points yet.', 'punchcard-loyalty' ) . '</p>';
			} else {
				echo '<p>' . esc_html__( 'Your points cannot be shown right now. Please try again later.', 'punchcard-loyalty' ) . '</p>';
			}
			echo '</section>';
			return;
		}
		$points = (int) ( $answer['points'] ?? 0 );
		echo '<p class="punchcard-loyalty-balance">' . esc_html(
			/* translators: %s: number of points */
			sprintf( _n( 'You have %s point.', 'You have %s points.', $points, 'punchcard-loyalty' ), number_format_i18n( $points ) )
		) . '</p>';
		$transactions = isset( $answer['transactions'] ) && is_array( $answer['transactions'] ) ? $answer['transactions'] : array();
		if ( array() !== $transactions ) {
			echo '<table class="woocommerce-table shop_table punchcard-loyalty-history"><thead><tr><th>' . esc_html__( 'Date', 'punchcard-loyalty' )
				. '</th><th>' . esc_html__( 'Description', 'punchcard-loyalty' ) . '</th><th>' . esc_html__( 'Points', 'punchcard-loyalty' ) . '</th></tr></thead><tbody>';
			foreach ( $transactions as $t ) {
				$amount = (int) ( $t['amount'] ?? 0 );
				$when   = strtotime( (string) ( $t['createdAt'] ?? '' ) );
				echo '<tr><td>' . esc_html( $when ? date_i18n( get_option( 'date_format' ), $when ) : '' ) . '</td><td>'
					. esc_html( (string) ( $t['description'] ?? '' ) ) . '</td><td>' . esc_html( ( $amount > 0 ? '+' : '' ) . number_format_i18n( $amount ) ) . '</td></tr>';
			}
			echo '</tbody></table>';
		}
		echo '</section>';
	}
}
