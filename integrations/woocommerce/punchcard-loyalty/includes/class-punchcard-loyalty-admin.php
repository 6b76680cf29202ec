<?php
defined( 'ABSPATH' ) || exit;

/**
 * WooCommerce → Punchcard Loyalty: the keys, Connect and Disconnect, and the store settings kept by
 * Punchcard. Only users who may manage WooCommerce (administrators and shop managers) see or
 * change any of it.
 */
final class Punchcard_Loyalty_Admin {
	const CAPABILITY = 'manage_woocommerce';
	const PAGE       = 'punchcard-loyalty';

	public static function register(): void {
		add_action( 'admin_menu', array( self::class, 'menu' ), 60 );
		add_action( 'admin_post_punchcard_loyalty_connect', array( self::class, 'handle_connect' ) );
		add_action( 'admin_post_punchcard_loyalty_disconnect', array( self::class, 'handle_disconnect' ) );
		add_action( 'admin_post_punchcard_loyalty_store_settings', array( self::class, 'handle_store_settings' ) );
	}

	public static function menu(): void {
		add_submenu_page( 'woocommerce', __( 'Punchcard Loyalty', 'punchcard-loyalty' ), __( 'Punchcard Loyalty', 'punchcard-loyalty' ), self::CAPABILITY, self::PAGE, array( self::class, 'render' ) );
	}

	private static function page_url(): string {
		return admin_url( 'admin.php?page=' . self::PAGE );
	}

	/** Handlers answer 403 to anyone else, whatever link or form they used. */
	private static function guard( string $action ): void {
		if ( ! current_user_can( self::CAPABILITY ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to configure Punchcard Loyalty.', 'punchcard-loyalty' ), '', array( 'response' => 403 ) );
		}
		check_admin_referer( $action );
	}

	/** The message shown once on the next page view (after the redirect). */
	private static function notice( string $type, string $message ): void {
		set_transient( 'punchcard_loyalty_notice_' . get_current_user_id(), array( $type, $message ), 300 );
	}

	private static function back(): void {
		wp_safe_redirect( self::page_url() );
		exit;
	}

	private static function posted( string $name ): string {
		return isset( $_POST[ $name ] ) ? trim( sanitize_text_field( wp_unslash( $_POST[ $name ] ) ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification -- guard() checked it.
	}

	/** Saves the keys (a secret left blank keeps the saved one) and, with the Connect button, connects. */
	public static function handle_connect(): void {
		self::guard( 'punchcard_loyalty_connect' );
		$url     = untrailingslashit( esc_url_raw( self::posted( 'url' ), array( 'http', 'https' ) ) );
		$changes = array(
			'url'             => $url,
			'publishable_key' => self::posted( 'publishable_key' ),
		);
		foreach ( array( 'secret_key', 'widget_secret' ) as $secret ) {
			if ( '' !== self::posted( $secret ) ) {
				$changes[ $secret ] = self::posted( $secret );
			}
		}
		$problem = self::check_keys( array_merge( Punchcard_Loyalty_Options::all(), $changes ) );
		if ( null !== $problem ) {
			self::notice( 'error', $problem );
			self::back();
		}
		Punchcard_Loyalty_Options::update( $changes );
		if ( ! isset( $_POST['connect'] ) ) { // phpcs:ignore WordPress.Security.NonceVerification -- guard() checked it.
			self::notice( 'success', __( 'Settings saved.', 'punchcard-loyalty' ) );
			self::back();
		}
		$store = Punchcard_Loyalty_Store::connect( self::posted( 'consumer_key' ), self::posted( 'consumer_secret' ) );
		if ( is_wp_error( $store ) ) {
			/* translators: %s: Punchcard's message */
			self::notice( 'error', sprintf( __( 'Could not connect: %s', 'punchcard-loyalty' ), $store->get_error_message() ) );
		} else {
			/* translators: %s: the store id at Punchcard */
			self::notice( 'success', sprintf( __( 'Connected to Punchcard as store %s.', 'punchcard-loyalty' ), $store['id'] ) );
		}
		self::back();
	}

	/** Says what is wrong with the keys before anything is sent; null when they look right. */
	private static function check_keys( array $o ): ?string {
		if ( '' === $o['url'] ) {
			return __( 'Enter the address of your Punchcard server, such as https://loyalty.example.com.', 'punchcard-loyalty' );
		}
		if ( '' !== $o['secret_key'] && 0 !== strpos( $o['secret_key'], 'sk_' ) ) {
			return __( 'The secret key starts with sk_.', 'punchcard-loyalty' );
		}
		if ( '' !== $o['publishable_key'] && 0 !== strpos( $o['publishable_key'], 'pk_' ) ) {
			return __( 'The publishable key starts with pk_.', 'punchcard-loyalty' );
		}
		if ( '' !== $o['widget_secret'] && 0 !== strpos( $o['widget_secret'], 'whsk_' ) ) {
			return __( 'The widget secret starts with whsk_.', 'punchcard-loyalty' );
		}
		return null;
	}

	public static function handle_disconnect(): void {
		self::guard( 'punchcard_loyalty_disconnect' );
		$done = Punchcard_Loyalty_Store::disconnect();
		if ( is_wp_error( $done ) ) {
			/* translators: %s: Punchcard's message */
			self::notice( 'error', sprintf( __( 'Could not disconnect: %s', 'punchcard-loyalty' ), $done->get_error_message() ) );
		} else {
			self::notice( 'success', __( 'Disconnected. Punchcard no longer receives this store\'s orders.', 'punchcard-loyalty' ) );
		}
		self::back();
	}

	public static function handle_store_settings(): void {
		self::guard( 'punchcard_loyalty_store_settings' );
		$min     = self::posted( 'minOrderAmount' );
		$changes = array(
			'pointsPerDollar' => (float) self::posted( 'pointsPerDollar' ),
			'rounding'        => self::posted( 'rounding' ),
			'minOrderAmount'  => '' === $min ? null : (float) $min,
			'pointsOnStatus'  => self::posted( 'pointsOnStatus' ),
		);
		if ( '' !== self::posted( 'memberIdentifier' ) ) {
			$changes['memberIdentifier'] = self::posted( 'memberIdentifier' );
		}
		foreach ( array( 'excludeShipping', 'excludeTax', 'excludeGuest', 'showInAccount' ) as $flag ) {
			$changes[ $flag ] = '1' === self::posted( $flag );
		}
		$answer = Punchcard_Loyalty_Store::update_settings( $changes );
		if ( is_wp_error( $answer ) ) {
			/* translators: %s: Punchcard's message */
			self::notice( 'error', sprintf( __( 'Could not save the store settings: %s', 'punchcard-loyalty' ), $answer->get_error_message() ) );
		} else {
			self::notice( 'success', __( 'Store settings saved.', 'punchcard-loyalty' ) );
		}
		self::back();
	}

	public static function render(): void {
		if ( ! current_user_can( self::CAPABILITY ) ) {
			return;
		}
		$o = Punchcard_Loyalty_Options::all();
		echo '<div class="wrap"><h1>' . esc_html__( 'Punchcard Loyalty', 'punchcard-loyalty' ) . '</h1>';
		$notice = get_transient( 'punchcard_loyalty_notice_' . get_current_user_id() );
		if ( is_array( $notice ) ) {
			delete_transient( 'punchcard_loyalty_notice_' . get_current_user_id() );
			echo '<div class="notice notice-' . esc_attr( $notice[0] ) . ' punchcard-loyalty-notice"><p>' . esc_html( $notice[1] ) . '</p></div>';
		}
		self::render_keys( $o );
		if ( Punchcard_Loyalty_Options::connected() ) {
			self::render_connection( $o );
			Punchcard_Loyalty_Import::render();
		}
		echo '</div>';
	}

	private static function render_keys( array $o ): void {
		$field = static function ( string $name, string $label, string $value, string $type, string $help ) {
			echo '<tr><th scope="row"><label for="punchcard-' . esc_attr( $name ) . '">' . esc_html( $label ) . '</label></th><td>'
				. '<input class="regular-text" type="' . esc_attr( $type ) . '" id="punchcard-' . esc_attr( $name ) . '" name="' . esc_attr( $name ) . '" value="' . esc_attr( $value ) . '" autocomplete="off">'
				. '<p class="description">' . esc_html( $help ) . '</p></td></tr>';
		};
		$saved = __( 'Saved; leave blank to keep it.', 'punchcard-loyalty' );
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		wp_nonce_field( 'punchcard_loyalty_connect' );
		echo '<input type="hidden" name="action" value="punchcard_loyalty_connect"><table class="form-table" role="presentation">';
		$field( 'url', __( 'Punchcard URL', 'punchcard-loyalty' ), $o['url'], 'url', __( 'Your Punchcard server, such as https://loyalty.example.com.', 'punchcard-loyalty' ) );
		$field( 'secret_key', __( 'Secret key', 'punchcard-loyalty' ), '', 'password', '' !== $o['secret_key'] ? $saved : __( 'sk_live_…: connects the store and reads customers\' points. Never shown to visitors.', 'punchcard-loyalty' ) );
		$field( 'publishable_key', __( 'Publishable key', 'punchcard-loyalty' ), $o['publishable_key'], 'text', __( 'pk_live_…: names your programme in the widget.', 'punchcard-loyalty' ) );
		$field( 'widget_secret', __( 'Widget secret', 'punchcard-loyalty' ), '', 'password', '' !== $o['widget_secret'] ? $saved : __( 'whsk_…: signs each customer\'s widget on this server. Never shown to visitors.', 'punchcard-loyalty' ) );
		$field( 'consumer_key', __( 'WooCommerce consumer key (optional)', 'punchcard-loyalty' ), '', 'text', __( 'Leave both blank and Connect creates a read/write REST API key named "Punchcard Loyalty" for you. Or enter a key you made under WooCommerce → Settings → Advanced → REST API.', 'punchcard-loyalty' ) );
		$field( 'consumer_secret', __( 'WooCommerce consumer secret (optional)', 'punchcard-loyalty' ), '', 'password', '' );
		echo '</table><p class="submit"><button type="submit" name="connect" value="1" class="button button-primary">'
			. esc_html( Punchcard_Loyalty_Options::connected() ? __( 'Save and reconnect', 'punchcard-loyalty' ) : __( 'Connect', 'punchcard-loyalty' ) )
			. '</button> <button type="submit" name="save" value="1" class="button">' . esc_html__( 'Save without connecting', 'punchcard-loyalty' ) . '</button></p></form>';
	}

	private static function render_connection( array $o ): void {
		echo '<h2>' . esc_html__( 'Connection', 'punchcard-loyalty' ) . '</h2><p class="punchcard-loyalty-store">'
			/* translators: 1: store id, 2: project id */
			. esc_html( sprintf( __( 'Connected as store %1$s of project %2$s.', 'punchcard-loyalty' ), $o['store_id'], $o['organization_id'] ) ) . '</p>';
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		wp_nonce_field( 'punchcard_loyalty_disconnect' );
		echo '<input type="hidden" name="action" value="punchcard_loyalty_disconnect"><button type="submit" class="button">' . esc_html__( 'Disconnect', 'punchcard-loyalty' ) . '</button></form>';

		// Reading the settings on this page also refreshes what the storefront uses.
		$settings = Punchcard_Loyalty_Store::settings( true );
		echo '<h2>' . esc_html__( 'Points for orders', 'punchcard-loyalty' ) . '</h2>';
		if ( ! is_array( $settings ) ) {
			echo '<p>' . esc_html( is_wp_error( $settings ) ? $settings->get_error_message() : __( 'The store settings could not be read.', 'punchcard-loyalty' ) ) . '</p>';
			return;
		}
		$check = static function ( string $name, string $label ) use ( $settings ) {
			echo '<label><input type="checkbox" name="' . esc_attr( $name ) . '" value="1"' . checked( ! empty( $settings[ $name ] ), true, false ) . '> ' . esc_html( $label ) . '</label><br>';
		};
		$select = static function ( string $name, array $choices ) use ( $settings ) {
			echo '<select name="' . esc_attr( $name ) . '">';
			foreach ( $choices as $value => $label ) {
				echo '<option value="' . esc_attr( $value ) . '"' . selected( $settings[ $name ] ?? '', $value, false ) . '>' . esc_html( $label ) . '</option>';
			}
			echo '</select>';
		};
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		wp_nonce_field( 'punchcard_loyalty_store_settings' );
		echo '<input type="hidden" name="action" value="punchcard_loyalty_store_settings"><table class="form-table" role="presentation">';
		echo '<tr><th scope="row">' . esc_html__( 'Points per currency unit', 'punchcard-loyalty' ) . '</th><td><input type="number" min="0" step="any" name="pointsPerDollar" value="' . esc_attr( (string) ( $settings['pointsPerDollar'] ?? 1 ) ) . '"></td></tr>';
		echo '<tr><th scope="row">' . esc_html__( 'Rounding', 'punchcard-loyalty' ) . '</th><td>';
		$select( 'rounding', array( 'FLOOR' => __( 'Down', 'punchcard-loyalty' ), 'ROUND' => __( 'To the nearest', 'punchcard-loyalty' ), 'CEIL' => __( 'Up', 'punchcard-loyalty' ) ) );
		echo '</td></tr><tr><th scope="row">' . esc_html__( 'Minimum order amount', 'punchcard-loyalty' ) . '</th><td><input type="number" min="0" step="any" name="minOrderAmount" value="' . esc_attr( null === ( $settings['minOrderAmount'] ?? null ) ? '' : (string) $settings['minOrderAmount'] ) . '"><p class="description">' . esc_html__( 'Blank: every order earns.', 'punchcard-loyalty' ) . '</p></td></tr>';
		echo '<tr><th scope="row">' . esc_html__( 'Award points when an order is', 'punchcard-loyalty' ) . '</th><td>';
		$select( 'pointsOnStatus', array( 'completed' => __( 'Completed', 'punchcard-loyalty' ), 'processing' => __( 'Processing', 'punchcard-loyalty' ) ) );
		echo '</td></tr><tr><th scope="row">' . esc_html__( 'Customers are members by', 'punchcard-loyalty' ) . '</th><td>';
		$select( 'memberIdentifier', array( 'customerId' => __( 'WooCommerce customer id', 'punchcard-loyalty' ), 'email' => __( 'Email', 'punchcard-loyalty' ) ) );
		echo '<p class="description">' . esc_html__( 'The id members have in Punchcard. Change it only before customers have earned: members already made keep their id.', 'punchcard-loyalty' ) . '</p>';
		echo '</td></tr><tr><th scope="row">' . esc_html__( 'Options', 'punchcard-loyalty' ) . '</th><td>';
		$check( 'excludeShipping', __( 'No points for shipping', 'punchcard-loyalty' ) );
		$check( 'excludeTax', __( 'No points for tax', 'punchcard-loyalty' ) );
		$check( 'excludeGuest', __( 'No points for guest orders', 'punchcard-loyalty' ) );
		$check( 'showInAccount', __( 'Show points and history in My Account', 'punchcard-loyalty' ) );
		echo '</td></tr></table><p class="submit"><button type="submit" class="button button-primary">' . esc_html__( 'Save store settings', 'punchcard-loyalty' ) . '</button></p></form>';
	}
}
