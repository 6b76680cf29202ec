<?php
/**
 * Plugin Name:       Punchcard Loyalty
 * Description:       Connects this WooCommerce store to a Punchcard loyalty server: points for orders, the loyalty widget for signed-in customers, and points in My Account.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.1
 * Author:            Punchcard
 * License:           MIT
 * Text Domain:       punchcard-loyalty
 * WC requires at least: 7.0
 */

defined( 'ABSPATH' ) || exit;

define( 'PUNCHCARD_LOYALTY_VERSION', '0.1.0' );
define( 'PUNCHCARD_LOYALTY_FILE', __FILE__ );

require_once __DIR__ . '/includes/class-punchcard-loyalty-options.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-client.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-store.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-rest-keys.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-admin.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-widget.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-account.php';
require_once __DIR__ . '/includes/class-punchcard-loyalty-import.php';

// Everything but the activation hook waits for WooCommerce: without it there are no customers,
// no REST keys and no My Account, so the plugin only says what is missing.
add_action(
	'plugins_loaded',
	static function () {
		if ( ! class_exists( 'WooCommerce' ) ) {
			add_action(
				'admin_notices',
				static function () {
					if ( current_user_can( 'activate_plugins' ) ) {
						echo '<div class="notice notice-error"><p>' . esc_html__( 'Punchcard Loyalty needs WooCommerce: install and activate it first.', 'punchcard-loyalty' ) . '</p></div>';
					}
				}
			);
			return;
		}
		Punchcard_Loyalty_Admin::register();
		Punchcard_Loyalty_Import::register();
		Punchcard_Loyalty_Widget::register();
		Punchcard_Loyalty_Account::register();
	}
);

// The plugin never reads or writes orders itself (Punchcard reads them through the REST API), so it
// works with WooCommerce's order tables (HPOS) as with posts.
add_action(
	'before_woocommerce_init',
	static function () {
		if ( class_exists( \Automattic\WooCommerce\Utilities\FeaturesUtil::class ) ) {
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'custom_order_tables', __FILE__, true );
		}
	}
);

// A "Settings" link beside Deactivate on the Plugins page.
add_filter(
	'plugin_action_links_' . plugin_basename( __FILE__ ),
	static function ( $links ) {
		if ( class_exists( 'WooCommerce' ) && current_user_can( 'manage_woocommerce' ) ) {
			array_unshift( $links, '<a href="' . esc_url( admin_url( 'admin.php?page=punchcard-loyalty' ) ) . '">' . esc_html__( 'Settings', 'punchcard-loyalty' ) . '</a>' );
		}
		return $links;
	}
);

// The My Account endpoint is a rewrite rule: rules are rebuilt once on activation and deactivation.
register_activation_hook(
	__FILE__,
	static function () {
		Punchcard_Loyalty_Account::add_endpoint();
		flush_rewrite_rules();
	}
);
register_deactivation_hook( __FILE__, 'flush_rewrite_rules' );
